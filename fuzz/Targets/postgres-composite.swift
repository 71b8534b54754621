// Target `postgres-composite`: StoragePostgres.PostgresComposite, the reader of composite values in PostgreSQL's binary
// format, in which the sign-in's write answers (a server, or whatever answers in its place, chooses these bytes). The
// input is the value's bytes. A value it accepts counts its fields in its first four bytes, lays each field after an
// eight-byte header, in order and within the input, ends exactly at the input's end, and is refused one byte short.
@testable import StoragePostgres

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    guard let fields = try? PostgresComposite.fields(input) else { return 0 }
    let count = input.prefix(4).reduce(0) { ($0 << 8) | Int($1) }
    guard fields.count == count, count <= PostgresComposite.maximumFields else { fuzzFailure("\(fields.count) fields read of \(count)") }
    var offset = 4
    for field in fields {
        offset += 8
        guard let field else { continue }
        guard field.lowerBound == offset, field.upperBound <= input.count else { fuzzFailure("a field outside its place: \(field)") }
        offset = field.upperBound
    }
    guard offset == input.count else { fuzzFailure("the fields end at \(offset) of \(input.count) bytes") }
    guard (try? PostgresComposite.fields(Array(input.dropLast()))) == nil else { fuzzFailure("a value one byte short reads") }
    return 0
}
