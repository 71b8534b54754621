import Foundation
import Observability
import Synchronization

/// The two signs of credential stuffing among failed password sign-ins (issue 38): one client address trying many
/// accounts, and one account tried from many client addresses, within a window. Each is raised once per window and
/// key, when the distinct count reaches the threshold. Kept in memory on each node, with a bounded number of keys.
final class CredentialStuffingSignals: Sendable {
    /// A sign that was seen.
    enum Signal: Equatable {
        /// `address` tried `count` distinct accounts within the window.
        case accountsPerAddress(address: String, count: Int)
        /// The account (`account`: the limiter's key of the name or email tried) was tried from `count` addresses.
        case addressesPerAccount(account: String, count: Int)

        /// The metric label and event value.
        var name: String {
            switch self {
            case .accountsPerAddress: "accounts_per_address"
            case .addressesPerAccount: "addresses_per_account"
            }
        }
    }

    /// The distinct members a key collected in its window; `raised` once its signal went out.
    private struct Window {
        let start: Date
        var members: Set<String> = []
        var raised = false
    }

    private struct State {
        var byAddress: [String: Window] = [:]
        var byAccount: [String: Window] = [:]
    }

    let threshold: Int
    let windowSeconds: Int
    /// The most keys of each kind tracked at once; past it, windows that ended are dropped, then the oldest.
    let maximumKeys: Int
    /// `passkeyd_password_stuffing_signals_total{signal}` (nil without metrics).
    private let raised: MetricFamily<Counter>?
    private let state = Mutex(State())

    init(threshold: Int = 10, windowSeconds: Int = 600, maximumKeys: Int = 10_000, raised: MetricFamily<Counter>? = nil) {
        self.threshold = threshold
        self.windowSeconds = windowSeconds
        self.maximumKeys = maximumKeys
        self.raised = raised
    }

    /// The keys tracked now, by address and by account (for tests).
    var trackedKeys: (addresses: Int, accounts: Int) { state.withLock { ($0.byAddress.count, $0.byAccount.count) } }

    /// Notes a failed password sign-in of `account` from `address` at `now`; returns the signs it raised, each counted.
    func failed(account: String, address: String, now: Date) -> [Signal] {
        let signals = state.withLock { state in
            var signals: [Signal] = []
            if let count = note(member: account, of: address, in: &state.byAddress, now: now) {
                signals.append(.accountsPerAddress(address: address, count: count))
            }
            if let count = note(member: address, of: account, in: &state.byAccount, now: now) {
                signals.append(.addressesPerAccount(account: account, count: count))
            }
            return signals
        }
        for signal in signals { raised?.increment([signal.name]) }
        return signals
    }

    /// Adds `member` to `key`'s window (a new one when it ended); the distinct count when it just reached the threshold.
    private func note(member: String, of key: String, in windows: inout [String: Window], now: Date) -> Int? {
        var window = windows[key].flatMap { now.timeIntervalSince($0.start) < Double(windowSeconds) ? $0 : nil } ?? Window(start: now)
        if windows[key] == nil, windows.count >= maximumKeys { makeRoom(in: &windows, now: now) }
        // Past the threshold nothing more is learnt in this window: the set stays bounded.
        if !window.raised { window.members.insert(member) }
        var reached: Int?
        if !window.raised, window.members.count >= threshold {
            window.raised = true
            reached = window.members.count
            window.members = []
        }
        windows[key] = window
        return reached
    }

    /// Drops the windows that ended, and when none did, the oldest tenth.
    private func makeRoom(in windows: inout [String: Window], now: Date) {
        windows = windows.filter { now.timeIntervalSince($0.value.start) < Double(windowSeconds) }
        guard windows.count >= maximumKeys else { return }
        let oldest = windows.sorted { $0.value.start < $1.value.start }.prefix(max(1, maximumKeys / 10)).map(\.key)
        for key in oldest { windows[key] = nil }
    }
}
