import Foundation

/// Seeded fake data for `{{fake.…}}` placeholders: names, e-mail addresses, phone numbers, addresses, UUIDs, numbers in
/// ranges. Every value is a function of its key alone (the session's seed, and the stub and call, or the `key=` a
/// placeholder gives), never of a shared generator: the same seed gives the same values whatever other requests, and
/// in whatever order, the daemon answers meanwhile, so a run is reproduced by its seed.
///
/// The numbers come from SplitMix64 (Steele, Lea, Flood 2014) started from an FNV-1a hash of the key: no `Hasher`
/// (randomly seeded per process), so the values are the same on every machine and every run. The lists are made up
/// for mockd; e-mail domains are the reserved `example.com`, `example.net` and `example.org` (RFC 2606) and phone
/// numbers are in the 555-0100…0199 range set aside for fiction in the North American Numbering Plan.
struct FakeData {
    private var random: SplitMix64

    /// A generator for `key` (any text) under the session's `seed`.
    init(seed: UInt64, key: String) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        random = SplitMix64(seed: hash ^ (seed &* 0x9E37_79B9_7F4A_7C15))
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 { random.next() }

    /// A whole number in `range` (both ends included).
    mutating func int(in range: ClosedRange<Int64>) -> Int64 {
        let width = UInt64(bitPattern: range.upperBound &- range.lowerBound) &+ 1
        guard width != 0 else { return Int64(bitPattern: next()) }  // the whole Int64 range
        return range.lowerBound &+ Int64(bitPattern: next() % width)
    }

    /// A number in `[0, 1)`.
    mutating func unit() -> Double { random.unit() }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }

    /// A version 4 UUID (RFC 9562 §5.4), lower case.
    mutating func uuid() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        for half in 0..<2 {
            var word = next()
            for index in 0..<8 {
                bytes[half * 8 + index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
            }
        }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(
            separator: "-"
        )
    }

    /// `count` characters of `alphabet`.
    mutating func characters(_ count: Int, from alphabet: [Character]) -> String {
        String((0..<count).map { _ in pick(alphabet) })
    }

    /// One made-up person: every field of a `{{fake.…}}` person placeholder with the same key describes the same
    /// person (the e-mail address is made of the name).
    struct Person {
        let firstName: String
        let lastName: String
        let email: String
        let username: String
        let phone: String
        let street: String
        let city: String
        let postcode: String
        let country: String
        let countryCode: String
        let company: String

        var name: String { "\(firstName) \(lastName)" }
        var address: String { "\(street), \(postcode) \(city), \(country)" }
    }

    mutating func person() -> Person {
        let first = pick(FakeData.firstNames)
        let last = pick(FakeData.lastNames)
        let handle = "\(first).\(last)".lowercased().filter { $0.isLetter || $0 == "." }
        let number = int(in: 1...99)
        let domain = pick(["example.com", "example.net", "example.org"])
        let (country, code) = pick(FakeData.countries)
        return Person(
            firstName: first,
            lastName: last,
            email: "\(handle)@\(domain)",
            username: "\(handle.replacingOccurrences(of: ".", with: "_"))\(number)",
            phone: "+1\(pick(FakeData.areaCodes))55501\(String(format: "%02d", int(in: 0...99)))",
            street: "\(int(in: 1...999)) \(pick(FakeData.streetNames)) \(pick(FakeData.streetKinds))",
            city: pick(FakeData.cities),
            postcode: String(format: "%05d", int(in: 10_000...99_999)),
            country: country,
            countryCode: code,
            company: "\(pick(FakeData.lastNames)) \(pick(FakeData.companyKinds))"
        )
    }

    /// `count` words of filler text.
    mutating func words(_ count: Int) -> [String] { (0..<count).map { _ in pick(FakeData.fillerWords) } }

    static let firstNames = [
        "Ada", "Alan", "Amara", "Anna", "Arjun", "Astrid", "Ben", "Bruno", "Camille", "Carlos", "Chen", "Chloe",
        "Daniel", "Diego", "Elena", "Emma", "Farah", "Felix", "Grace", "Hana", "Hugo", "Ines", "Isaac", "Jonas",
        "Julia", "Kai", "Kenji", "Lara", "Leo", "Lina", "Lucas", "Maya", "Mei", "Mila", "Nadia", "Noah", "Olga",
        "Omar", "Paula", "Priya", "Rafael", "Rosa", "Sam", "Sara", "Sofia", "Tariq", "Theo", "Uma", "Victor", "Yara",
        "Yusuf", "Zoe",
    ]

    static let lastNames = [
        "Abbott", "Alvarez", "Becker", "Bianchi", "Brooks", "Carter", "Costa", "Dubois", "Eriksen", "Fischer",
        "Garcia", "Haddad", "Hansen", "Ito", "Jensen", "Kim", "Kowalski", "Lambert", "Larsen", "Lopez", "Martin",
        "Meyer", "Moreau", "Nakamura", "Novak", "Okafor", "Olsen", "Park", "Patel", "Perez", "Quinn", "Reyes", "Rossi",
        "Santos", "Schmidt", "Silva", "Singh", "Sato", "Tanaka", "Turner", "Varga", "Wagner", "Walsh", "Weber",
        "Young", "Zhang",
    ]

    static let streetNames = [
        "Maple", "Oak", "Cedar", "Elm", "Willow", "Birch", "Harbor", "Lake", "River", "Hill", "Park", "Station",
        "Market", "Church", "Mill", "Orchard", "Meadow", "Spring", "Garden", "Bridge", "Forest", "Sunset", "Highland",
        "Valley",
    ]

    static let streetKinds = ["Street", "Avenue", "Road", "Lane", "Drive", "Way", "Court", "Place", "Boulevard"]

    static let cities = [
        "Springfield", "Riverton", "Fairview", "Lakeside", "Brookfield", "Greenville", "Kingston", "Milford",
        "Newport", "Oakdale", "Bridgeport", "Ashford", "Clifton", "Dover", "Easton", "Franklin", "Georgetown",
        "Hamilton", "Lexington", "Madison", "Norwood", "Salem", "Westfield", "Winchester",
    ]

    static let countries: [(String, String)] = [
        ("United States", "US"), ("Canada", "CA"), ("Mexico", "MX"), ("Brazil", "BR"), ("Argentina", "AR"),
        ("United Kingdom", "GB"), ("Ireland", "IE"), ("France", "FR"), ("Germany", "DE"), ("Spain", "ES"),
        ("Portugal", "PT"), ("Italy", "IT"), ("Netherlands", "NL"), ("Belgium", "BE"), ("Switzerland", "CH"),
        ("Austria", "AT"), ("Denmark", "DK"), ("Sweden", "SE"), ("Norway", "NO"), ("Finland", "FI"), ("Poland", "PL"),
        ("Czechia", "CZ"), ("Greece", "GR"), ("Turkey", "TR"), ("India", "IN"), ("Japan", "JP"),
        ("South Korea", "KR"), ("Australia", "AU"), ("New Zealand", "NZ"), ("South Africa", "ZA"), ("Nigeria", "NG"),
        ("Egypt", "EG"),
    ]

    /// North American area codes in use; `555-01xx` numbers under them are fictional.
    static let areaCodes = [
        "201", "202", "206", "212", "213", "305", "312", "347", "404", "415", "503", "512", "617", "646", "702", "713",
        "718", "773", "786", "818", "917", "949",
    ]

    static let companyKinds = ["Labs", "Group", "Systems", "& Co", "Studio", "Partners", "Works", "Holdings", "Ltd"]

    static let fillerWords = [
        "alpha", "amber", "anchor", "apple", "autumn", "beacon", "breeze", "canvas", "cloud", "copper", "coral",
        "crystal", "delta", "ember", "falcon", "fern", "galaxy", "glacier", "harbor", "horizon", "island", "jade",
        "lantern", "lotus", "marble", "meadow", "nectar", "nova", "ocean", "olive", "orbit", "pebble", "pine", "prism",
        "quartz", "ripple", "river", "saffron", "shadow", "signal", "spark", "summit", "thistle", "timber", "tulip",
        "velvet", "willow", "zephyr",
    ]
}
