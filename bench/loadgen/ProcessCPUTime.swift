import Foundation

/// The CPU time (user + system) a process has used so far, read from `/proc/<pid>/stat` (fields 14 and 15, in clock
/// ticks): the loadgen's measure of what one ceremony costs the server, whatever its threads do, and the load
/// generator itself.
struct ProcessCPUTime {
    let processID: Int32

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Seconds of CPU the process has used.
    func seconds() throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(processID)/stat", encoding: .utf8)
        // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
        guard let close = stat.lastIndex(of: ")") else { throw Failure(description: "unreadable /proc/\(processID)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After ")": field 3 (state) is fields[0], so field 14 (utime) is fields[11] and field 15 (stime) fields[12].
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw Failure(description: "no CPU times in /proc/\(processID)/stat")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
