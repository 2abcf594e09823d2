@_exported public import MockdControl
// A stub is written in the scenario override format (`ScenarioFile.OverrideEntry`, `ResponseStepEntry`, `Fault`,
// `JSONValue`…), and every answer is a type of the control API's contract (`Health`, `JournalEntry`, `NearMiss`…): a
// test that imports MockdClient can name those types without a second import.
@_exported public import MockdFormat

/// One part of a request that differed from a stub: `NearMiss.Difference`.
public typealias Difference = NearMiss.Difference
