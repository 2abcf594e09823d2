import Foundation
import MockdFormat

extension KnownFields {
    /// Every unknown field in `data` as a located `ConfigError` (`file: JSON path: unknown field`).
    static func check(_ data: Data, shape: Shape, file: String) -> [ConfigError] {
        unknownFields(in: data, shape: shape).map {
            ConfigError(.invalidValue, file: file, jsonPath: $0.jsonPath, message: $0.message)
        }
    }
}
