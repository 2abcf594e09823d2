extension NearMiss {
    /// As the 404 body and the journal show it: `{"stub", "set", "distance", "differs": [{"part", "expected",
    /// "actual"}], "priority"?}` (distance to three decimals).
    var jsonObject: [String: Any] {
        var item: [String: Any] = [
            "stub": stubID,
            "set": setName,
            "distance": (distance * 1000).rounded() / 1000,
            "differs": differences.map { ["part": $0.part, "expected": $0.expected, "actual": $0.actual] },
        ]
        if let priority { item["priority"] = priority }
        return item
    }
}
