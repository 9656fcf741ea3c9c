// The reproducer of scripts/repro/tsan-mutex: a correct program that ThreadSanitizer reports at -Onone.
import Synchronization
import Foundation

// Two threads increment a counter kept inside a Synchronization.Mutex. Every access is under the lock.
final class Box: Sendable {
    let state = Mutex<[Int]>([])
}
let box = Box()
let usePthread = CommandLine.arguments.contains("pthread")
final class PBox: @unchecked Sendable {
    var lock = pthread_mutex_t()
    var values: [Int] = []
    init() { pthread_mutex_init(&lock, nil) }
}
let pbox = PBox()
let group = DispatchGroup()
for t in 0..<2 {
    group.enter()
    Thread.detachNewThread {
        for i in 0..<200_000 {
            if usePthread {
                pthread_mutex_lock(&pbox.lock); pbox.values.append(i + t); pthread_mutex_unlock(&pbox.lock)
            } else {
                box.state.withLock { $0.append(i + t) }
            }
        }
        group.leave()
    }
}
group.wait()
print(usePthread ? pbox.values.count : box.state.withLock { $0.count })
