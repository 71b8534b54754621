import Foundation
import HTTPEdge
import Storage
import UserImport

/// One import of a file of users, read in pieces (`read`) and written in batches, by the one path every import takes:
/// `POST /admin/import` hands it its body and writes it in one transaction (`batchSize` nil, at most
/// `AdminExport.maximumLines` lines or users); `passkeyd admin import` hands it its file a piece at a time and writes
/// every `batchSize` users in a transaction of their own, so its memory is one piece and one batch whatever the
/// file's size. What a record becomes is decided once (`AdminService.importBatch` and the readers of each format):
/// an import is idempotent, so a file imported again, or an import stopped half-way and run again, finds the users
/// already written unchanged (counted `unchanged`, no event) and writes the rest.
public struct AdminImporter {
    /// The file's format.
    public enum Format: Sendable {
        /// passkeyd's export (`AdminExport`, NDJSON).
        case export
        /// A `firebase auth:export` file, with the project's password hash parameters when given.
        case firebase(FirebaseHashParameters?)
        /// Supabase's `auth.users` as one JSON array.
        case supabase
        /// Auth0's export, NDJSON or one JSON array.
        case auth0

        var layout: ImportRecordReader.Layout {
            switch self {
            case .export: AdminExport.layout
            case .firebase: FirebaseAuthExport.layout
            case .supabase: SupabaseUsersExport.layout
            case .auth0: Auth0UsersExport.layout
            }
        }
    }

    /// The users of a batch when none is given, and the most a batch may have.
    public static let defaultBatchSize = 1_000
    public static let batchSizes = 1...10_000

    let service: AdminService
    let format: Format
    let batchSize: Int?
    let now: Date
    private var reader: ImportRecordReader
    private var exportReader: AdminExport.Reader<AdminFieldRules>
    private var batch = AdminExport.Batch()
    private var skipped = AdminImportReport.Skipped()
    /// What the batches written so far did.
    public private(set) var report = AdminImportReport()
    /// The users read so far (written, in the batch being filled, or skipped).
    public private(set) var usersRead = 0

    /// An import by `service` of a file of `format`, written every `batchSize` users (nil: all in one transaction).
    public init(service: AdminService, format: Format, batchSize: Int?) {
        self.service = service
        self.format = format
        self.batchSize = batchSize
        now = service.time.now
        reader = ImportRecordReader(format.layout, maximumRecords: batchSize == nil ? AdminExport.maximumLines : nil)
        exportReader = AdminExport.Reader(relyingPartyID: service.relyingPartyID, now: now, rules: AdminFieldRules())
    }

    /// The users skipped so far (Firebase, Supabase, Auth0): not imported, and why.
    public var skippedSoFar: AdminImportReport.Skipped { skipped }

    /// Reads the next piece of the file, writing each batch it fills.
    /// - Throws: `400 import_invalid` (with `line`) for a record that is not of the format or out of its bounds, and
    ///   for more than `AdminExport.maximumLines` records in one transaction; what `importBatch` throws. The batches
    ///   written before stay written.
    public mutating func read(_ bytes: ArraySlice<UInt8>) throws(ServerError) {
        try reading { reader, add throws(UserImportError) in try reader.read(bytes, add) }
    }

    /// Reads the end of the file and writes the last batch; the whole import's report.
    public mutating func finish() throws(ServerError) -> AdminImportReport {
        try reading { reader, add throws(UserImportError) in try reader.finish(add) }
        if case .export = format {
            try ServerError.importing { () throws(UserImportError) in try exportReader.finish() }
        }
        try write()
        switch format {
        case .export: break
        case .firebase, .supabase, .auth0: report.skipped = skipped
        }
        return report
    }

    /// Runs `step` on the reader with `add` as what it hands its records to; the reader's refusal, or `add`'s.
    private mutating func reading(
        _ step: (inout ImportRecordReader, (Int, [UInt8]) throws(UserImportError) -> Void) throws(UserImportError) -> Void
    ) throws(ServerError) {
        var failure: ServerError?
        // The reader is moved out while its records are added (which changes the rest of `self`).
        var reader = ImportRecordReader(.lines)
        swap(&reader, &self.reader)
        defer { swap(&reader, &self.reader) }
        do throws(UserImportError) {
            try step(&reader) { number, record throws(UserImportError) in
                do throws(ServerError) { try add(record, number: number) } catch {
                    failure = error
                    throw UserImportError(.invalid)
                }
            }
        } catch {
            throw failure ?? ServerError(importing: error)
        }
    }

    /// Adds the record of line (or position) `number` to the batch, writing the batch first when it is full.
    private mutating func add(_ record: [UInt8], number: Int) throws(ServerError) {
        if let batchSize, batch.users.count >= batchSize || batch.count >= 4 * batchSize { try write() }
        do throws(ServerError) {
            switch format {
            case .export:
                let users = batch.users.count
                try ServerError.importing { () throws(UserImportError) in try exportReader.read(record, number: number, into: &batch) }
                usersRead += batch.users.count - users
            case .firebase(let parameters):
                usersRead += 1
                let user = try ServerError.importing { () throws(UserImportError) in try FirebaseAuthExport.user(record) }
                try service.addFirebaseUser(user, hashParameters: parameters, now: now, line: number, to: &batch, skipped: &skipped)
            case .supabase:
                usersRead += 1
                let user = try ServerError.importing { () throws(UserImportError) in try SupabaseUsersExport.user(record, now: now) }
                try service.addImportedUser(user, source: "supabase", now: now, line: number, to: &batch, skipped: &skipped)
            case .auth0:
                usersRead += 1
                let user = try ServerError.importing { () throws(UserImportError) in try Auth0UsersExport.user(record) }
                try service.addImportedUser(user, source: "auth0", now: now, line: number, to: &batch, skipped: &skipped)
            }
        } catch {
            throw error.onLine(number)
        }
    }

    /// Writes the batch in one transaction and starts the next.
    private mutating func write() throws(ServerError) {
        guard batch.count > 0 else { return }
        report.add(try service.importBatch(batch))
        batch = AdminExport.Batch()
    }
}
