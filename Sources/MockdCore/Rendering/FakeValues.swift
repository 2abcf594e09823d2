/// Fixed, valid-looking fake values that the placeholders of redacted secrets and personal data render
/// to, so a redacted mock set still serves well-formed data and matches consistently.
///
/// `mockd import-har` writes these placeholders in place of what it redacts; `mockd lint` accepts them.
public enum FakeValues {
    public static let values: [String: String] = [
        "token": "mockd-token-0000000000000000",
        "accessToken": "mockd-access-token-0000000000",
        "refreshToken": "mockd-refresh-token-000000000",
        "apiKey": "mockd-api-key-00000000",
        "secret": "mockd-secret-00000000",
        "password": "mockd-password",
        "cookie": "mockd-cookie-value",
        "signature": "mockd-signature-0000000000000000",
        // An unsigned JWT ({"alg":"none","typ":"JWT"}) whose payload is {"sub":"mockd-user"}.
        "jwt": "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJtb2NrZC11c2VyIn0.",
        "email": "user@example.com",
        "phone": "+15555550100",
        // A card number in a request key (whole-value redaction): masked but the last four of a Luhn-valid test
        // number; response bodies keep each card's own last four instead (`CardNumbers`).
        "card": "************4242",
    ]

    public static func value(for name: String) -> String? { values[name] }
}
