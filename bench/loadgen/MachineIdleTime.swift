import Foundation

/// The machine's idle time so far, summed over its cores, from the first line of `/proc/stat` (the `idle` and
/// `iowait` columns, in clock ticks), and its busy time (every other column but the guests', which `user` and `nice`
/// already count): measured over the load rounds only, the share of the cores nothing used tells a server that is
/// short of CPU (none idle) from one that waits on something else while the cores idle.
struct MachineIdleTime {
    /// Idle and busy seconds, summed over the cores.
    struct Reading {
        var idle: Double
        var busy: Double
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func read() throws -> Reading {
        let stat = try String(contentsOfFile: "/proc/stat", encoding: .utf8)
        guard let line = stat.split(separator: "\n").first, line.hasPrefix("cpu ") else {
            throw Failure(description: "no cpu line in /proc/stat")
        }
        // cpu user nice system idle iowait irq softirq steal guest guest_nice
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else { throw Failure(description: "unreadable cpu line in /proc/stat") }
        let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let idle = ticks[3] + ticks[4]
        let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]
        return Reading(idle: idle / perSecond, busy: busy / perSecond)
    }
}
