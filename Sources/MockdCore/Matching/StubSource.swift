/// What the stubs one loading thread built from one mock set share, kept once rather than in every stub: the set's
/// name, their request keys and ids (`StubTextArena`), and the rows of their body files read on first use.
///
/// A stub made on its own (the control API, a test) has one of its own.
final class StubSource: Sendable {
    /// The mock set the stubs came from.
    let setName: String
    /// The stubs' request keys and ids.
    let text: StubTextArena
    /// The body files of the stubs whose responses are completed on first use; `nil` when every body was read at load.
    let deferred: DeferredResponses?

    /// - Parameter expectedStubs: How many stubs will share it (room for their keys is reserved up front).
    init(setName: String, deferred: DeferredResponses? = nil, expectedStubs: Int = 1) {
        self.setName = setName
        self.text = StubTextArena(expectedBytes: expectedStubs * 64)
        self.deferred = deferred
    }
}
