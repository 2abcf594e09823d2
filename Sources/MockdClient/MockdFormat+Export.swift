// A stub is written in the scenario override format (`ScenarioFile.OverrideEntry`, `ResponseStepEntry`, `Fault`,
// `JSONValue`…): a test that imports MockdClient can name those types without a second import.
@_exported public import MockdFormat
