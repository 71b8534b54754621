// Target `backup-manifest`: RelyingPartyServer.BackupManifest(json:) — the reader of a backup's manifest.json, which
// `passkeyd restore` trusts to name the files it puts back — and, for a manifest it accepts, that it writes back to
// the same manifest and names only the data folder's files.
import RelyingPartyServer

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let manifest = BackupManifest(json: bytes(data, size)) else { return 0 }
    guard BackupManifest(json: manifest.json) == manifest else { fuzzFailure("an accepted manifest does not read back") }
    guard manifest.files.allSatisfy({ BackupManifest.fileNames.contains($0.name) }) else { fuzzFailure("a file outside the data folder's") }
    _ = manifest.files.first?.matches([1, 2, 3])
    return 0
}
