import Storage

extension PostgresStore {
    public func user(id: [UInt8]) throws(StorageError) -> UserRecord? {
        try withRecords { records throws(StorageError) in try records.user(id: id) }
    }

    public func user(name: String) throws(StorageError) -> UserRecord? {
        try withRecords { records throws(StorageError) in try records.user(name: name) }
    }

    public func user(nameSkeleton skeleton: String) throws(StorageError) -> UserRecord? {
        try withRecords { records throws(StorageError) in try records.user(nameSkeleton: skeleton) }
    }

    public func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord? {
        try withRecords { records throws(StorageError) in try records.credential(id: id) }
    }

    public func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord] {
        try withRecords { records throws(StorageError) in try records.credentials(userID: userID) }
    }
}
