extension NearMiss {
    /// As the 404 body and the journal show it: `{"stub", "set", "distance", "differs": [{"part", "expected",
    /// "actual"}], "priority"?}` (distance to three decimals).
    var jsonObject: [String: Any] {
        var item: [String: Any] = [
            "stub": stubID,
            "set": setName,
            "distance": (distance * 1000).rounded() / 1000,
            "differs": differences.map { difference -> [String: Any] in
                var item: [String: Any] = [
                    "part": difference.part, "expected": difference.expected, "actual": difference.actual,
                ]
                // Only when it happened: a regular expression ran out of its matching budget on this part.
                if difference.undecided { item["undecided"] = true }
                return item
            },
        ]
        if let priority { item["priority"] = priority }
        return item
    }
}
