import Testing

@testable import MockdCore

struct ImportProgressTests {
    @Test func lineShowsBytesEntriesAndRate() {
        let progress = HARStreamReader.Progress(bytesRead: 94_476_698, totalBytes: 209_717_406, entries: 7_342)
        #expect(
            ImportProgress.line(fileName: "/tmp/recordings/session.har", progress: progress, seconds: 2)
                == "importing session.har [=========>          ]  45%    90.1/200.0 MiB  7,342 entries  45.1 MiB/s"
        )
        let done = HARStreamReader.Progress(bytesRead: 1_048_576, totalBytes: 1_048_576, entries: 12)
        #expect(
            ImportProgress.line(fileName: "a-very-long-recording-name-from-proxyman.har", progress: done, seconds: 0)
                == "importing …-name-from-proxyman.har [====================] 100%     1.0/1.0 MiB  12 entries  0.0 MiB/s"
        )
    }

    @Test func aPipeShowsWhatHasComeWithoutAShare() {
        let progress = HARStreamReader.Progress(bytesRead: 94_476_698, totalBytes: 0, entries: 7_342)
        #expect(
            ImportProgress.line(fileName: "/dev/stdin", progress: progress, seconds: 2)
                == "importing stdin  90.1 MiB read  7,342 entries  45.1 MiB/s"
        )
    }

    @Test func redrawsAtMostTenTimesASecond() {
        var throttle = ImportProgress(start: 100)
        let times = [100.0, 100.01, 100.05, 100.12, 100.15, 100.23, 100.3, 101.5]
        #expect(times.map { throttle.shouldDraw(at: $0) } == [true, false, false, true, false, true, false, true])
        #expect(throttle.elapsed(at: 101.5) == 1.5)
    }

    @Test func groupsThousands() {
        #expect(
            [0, 999, 1_000, 12_345, 1_234_567, -4_000].map(ImportProgress.grouped) == [
                "0", "999", "1,000", "12,345", "1,234,567", "-4,000",
            ]
        )
    }
}
