/// Hands back one shared copy of each distinct value, so that many equal arrays or strings kept side by side (the
/// same response header lines on 100,000 recorded entries) hold one buffer between them instead of one each.
struct ValueInterner<Value: Hashable> {
    private var seen: Set<Value> = []

    /// `value`, or the equal value seen first.
    mutating func shared(_ value: Value) -> Value {
        seen.insert(value).memberAfterInsert
    }
}
