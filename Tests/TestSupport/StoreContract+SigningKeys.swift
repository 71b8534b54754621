import Foundation
import Storage

/// The clauses of the store contract for signing keys.
extension StoreContract {
    static let signingKeyChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "signing keys keep every field and are listed in order", run: signingKeysKeepEveryField),
        StoreContractCheck(name: "signing key IDs are unique and fields bounded", run: signingKeyIDsAreUnique),
        StoreContractCheck(name: "signing keys are retired and deleted by ID", run: signingKeysAreRetiredAndDeleted),
    ]

    public static func signingKeysKeepEveryField(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let now = StoreSamples.now
        let retired = StoreSamples.signingKey(
            3,
            activatesAt: now.addingTimeInterval(-100),
            retiresAt: now.addingTimeInterval(-0.5),
            expiresAt: now.addingTimeInterval(960.75)
        )
        let current = StoreSamples.signingKey(2, activatesAt: now.addingTimeInterval(-0.5))
        let tie = StoreSamples.signingKey(1, activatesAt: now.addingTimeInterval(-0.5))
        let pending = StoreSamples.signingKey(4, activatesAt: now.addingTimeInterval(900))
        try store.transaction { transaction throws(StorageError) in
            for key in [pending, current, retired, tie] {
                try transaction.insertSigningKey(key)
            }
        }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.signingKeys() },
            [retired, tie, current, pending],
            "listed"
        )
    }

    public static func signingKeyIDsAreUnique(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let now = StoreSamples.now
        try store.transaction { transaction throws(StorageError) in try transaction.insertSigningKey(StoreSamples.signingKey(1, activatesAt: now)) }
        var sameID = StoreSamples.signingKey(2, activatesAt: now)
        sameID.id = "key-1"
        try expectStorageError(.duplicateKey, "the same key ID") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in try transaction.insertSigningKey(sameID) }
        }
        for (label, change) in [
            ("an empty ID", { (key: inout SigningKeyRecord) in key.id = "" }),
            ("a long ID", { (key: inout SigningKeyRecord) in key.id = String(repeating: "k", count: SigningKeyRecord.maximumIDLength + 1) }),
            ("an empty sealed key", { (key: inout SigningKeyRecord) in key.sealedPrivateKey = [] }),
            (
                "a long JWK",
                { (key: inout SigningKeyRecord) in key.publicJWK = [UInt8](repeating: 0x20, count: SigningKeyRecord.maximumKeyLength + 1) }
            ),
        ] {
            var key = StoreSamples.signingKey(3, activatesAt: now)
            change(&key)
            try expectStorageError(.invalidRecord, label) { () throws(StorageError) in
                try store.transaction { transaction throws(StorageError) in try transaction.insertSigningKey(key) }
            }
        }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.signingKeys() },
            [StoreSamples.signingKey(1, activatesAt: now)],
            "only the first key"
        )
    }

    public static func signingKeysAreRetiredAndDeleted(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let now = StoreSamples.now
        try store.transaction { transaction throws(StorageError) in
            try transaction.insertSigningKey(StoreSamples.signingKey(1, activatesAt: now))
            try transaction.insertSigningKey(StoreSamples.signingKey(2, activatesAt: now.addingTimeInterval(900)))
        }
        let retiresAt = now.addingTimeInterval(900)
        let expiresAt = now.addingTimeInterval(1860.5)
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                [
                    try transaction.retireSigningKey(id: "key-1", retiresAt: retiresAt, expiresAt: expiresAt),
                    try transaction.retireSigningKey(id: "key-9", retiresAt: retiresAt, expiresAt: expiresAt),
                ]
            },
            [true, false],
            "retired"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.signingKeys() },
            [
                StoreSamples.signingKey(1, activatesAt: now, retiresAt: retiresAt, expiresAt: expiresAt),
                StoreSamples.signingKey(2, activatesAt: now.addingTimeInterval(900)),
            ],
            "after retiring"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                [try transaction.deleteSigningKey(id: "key-1"), try transaction.deleteSigningKey(id: "key-1")]
            },
            [true, false],
            "deleted once"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.signingKeys().map(\.id) },
            ["key-2"],
            "what is left"
        )
    }

}
