import Foundation

/// The calling thread's name as the system shows it (`top -H`, `ps -L`, `perf`): `/proc/thread-self/comm`.
public enum SystemThreadName {
    public static var current: String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .newlines)
    }
}
