import Foundation
public import MockdFormat

extension JSONValue {
    /// The value as `JSONSerialization` reads and writes it (`NSNull`, `Bool`, `Int`, `Double`, `String`, arrays and
    /// dictionaries): what templates look placeholders up in.
    public var foundationValue: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .int(let number): return number
        case .double(let number): return number
        case .string(let text): return text
        case .array(let items): return items.map(\.foundationValue)
        case .object(let members): return members.mapValues(\.foundationValue)
        }
    }
}
