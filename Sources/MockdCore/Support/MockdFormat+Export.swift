// The core's API speaks the file formats' types (`ScenarioFile`, `MockSetFile`, `Fault`, `JSONValue`…), so
// whoever imports MockdCore sees them too.
@_exported public import MockdFormat
