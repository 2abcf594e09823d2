/// Response headers that differ on every recording and mean nothing to a client under test: stored, they
/// churn diffs on every re-record; used as match constraints, they never match. `mockd import-har` leaves
/// them out (`--keep-header NAME` keeps one, `--drop-header NAME` adds one).
public enum UnstableHeaders {
    public static let defaults: [String] = [
        // Time of the recording (libmicrohttpd sends a fresh Date itself).
        "date", "age",
        // Request and trace ids.
        "x-request-id", "request-id", "x-correlation-id", "correlation-id", "traceparent", "tracestate",
        "x-amzn-trace-id",
        "x-amzn-requestid", "x-amz-request-id", "x-amz-id-2", "x-amz-cf-id", "x-amz-cf-pop", "cf-ray",
        "x-cloud-trace-context",
        "x-b3-traceid", "x-b3-spanid", "x-b3-parentspanid", "x-b3-sampled", "b3", "x-datadog-trace-id",
        "x-datadog-parent-id",
        "x-github-request-id", "x-served-by", "x-timer", "x-runtime", "x-envoy-upstream-service-time",
        // Reporting and timing endpoints of the recorded site.
        "server-timing", "report-to", "nel", "reporting-endpoints",
    ]
}
