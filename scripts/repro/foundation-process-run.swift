// A minimal reproducer for a crash of `Foundation.Process.run()` on Linux (swift-corelibs-foundation PR #5472,
// "Process.run() on Linux crashes intermittently — buffer over-read in findMaximumOpenFromProcSelfFD()").
//
// Before it spawns, `Process.run()` walks /proc/self/fd with readdir(3) and copies each entry's `d_name` as the
// declared 256-byte array (`var entryName = dirEntPtr.pointee.d_name`), while glibc hands out records sized to
// `d_reclen` (24 bytes for a short name) packed in the 32 KiB buffer of opendir's 32,816-byte block. With about 1,340
// descriptors or more open, the records fill that buffer and the copy of the last one reads up to ~240 bytes past the
// block. Only when the block ends just below an inaccessible page (the top of a malloc arena) does that read fault:
// SIGSEGV in memcpy below `Process.run()`. Swift 6.3.1's Foundation has the bug; docs/RELIABILITY.md, "A crash in
// CI", has the story.
//
// Usage: foundation-process-run [SECONDS] [MAX_RUNS] [DESCRIPTORS]   (defaults 50, 100000 and a varying number;
// `scripts/repro/foundation-process-run` compiles and runs it). It spawns /bin/true again and again from four tasks
// at once, each time with a different number of open descriptors (mostly around and above the threshold) and a
// different heap layout, and prints a line after each of the first 10 runs and then every 100, and a last line
// `done: N runs succeeded, no crash`. A crash ends the process (exit 139 with the Swift backtracer's report); the
// count printed last says how far it got. Built with AddressSanitizer (`--asan` in the script), the loop stops at the
// first over-read, whether or not it would have faulted.
import Foundation
import Synchronization

let arguments = CommandLine.arguments
let seconds = arguments.count > 1 ? Double(arguments[1]) ?? 50 : 50
let maxRuns = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
/// A fixed number of open descriptors instead of a varying one (to find the threshold).
let fixedDescriptors = arguments.count > 3 ? Int(arguments[3]) : nil
let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))

/// Descriptors opened on /dev/null to move the number of /proc/self/fd entries: kept open between runs.
let extraDescriptors = Mutex<[Int32]>([])

/// Opens or closes /dev/null descriptors until about `count` descriptors are open in all.
func setOpenDescriptors(_ count: Int) {
    extraDescriptors.withLock { extra in
        let base = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        var missing = count - (base - extra.count) - extra.count
        while missing > 0 {
            let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if fd < 0 { break }
            extra.append(fd)
            missing -= 1
        }
        while missing < 0, let fd = extra.popLast() {
            close(fd)
            missing += 1
        }
    }
}

let succeeded = Atomic<Int>(0)
let leaked = Atomic<Int>(0)
let stdoutLock = Mutex(())
func say(_ line: String) {
    stdoutLock.withLock { _ in
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

say("Process.run() loop: up to \(maxRuns) runs or \(Int(seconds)) s, \(fixedDescriptors.map { "\($0)" } ?? "a varying number of") open descriptors (limit \(sysconf(Int32(_SC_OPEN_MAX))))")
let workers = 4
await withTaskGroup(of: Void.self) { group in
    for worker in 0..<workers {
        group.addTask {
            var generator = SystemRandomNumberGenerator()
            while ContinuousClock.now < deadline && succeeded.load(ordering: .relaxed) < maxRuns {
                // Mostly 1,300-1,700 descriptors (the buffer fills from ~1,360), sometimes far fewer or more.
                let count = fixedDescriptors ?? (Bool.random(using: &generator) ? Int.random(in: 1_300...1_700, using: &generator) : Int.random(in: 16...4_000, using: &generator))
                if worker == 0 { setOpenDescriptors(count) }
                // Vary the heap layout: a block of random size, never freed, moves this thread's malloc arena's top
                // (at most 64,000 of them, about 256 MiB in all).
                if leaked.add(1, ordering: .relaxed).newValue < 64_000 {
                    _ = UnsafeMutableRawPointer.allocate(byteCount: Int.random(in: 16...8_000, using: &generator), alignment: 16)
                }
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/true")
                do {
                    try process.run()
                } catch {
                    say("spawn failed: \(error)")
                    continue
                }
                process.waitUntilExit()
                let total = succeeded.add(1, ordering: .relaxed).newValue
                if total <= 10 || total % 100 == 0 { say("\(total) runs succeeded") }
            }
        }
    }
}
say("done: \(succeeded.load(ordering: .relaxed)) runs succeeded, no crash")
