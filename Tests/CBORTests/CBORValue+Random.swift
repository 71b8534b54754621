import CBOR

extension CBORValue {
    /// A random value with no NaN (which never equals itself), no duplicate map keys and nesting below `depth`.
    static func random(depth: Int, using generator: inout SeededGenerator) -> CBORValue {
        let kind = Int.random(in: 0..<(depth > 0 ? 14 : 11), using: &generator)
        switch kind {
        case 0:
            return .unsigned(randomArgument(using: &generator))
        case 1:
            return .negative(randomArgument(using: &generator))
        case 2:
            return .bytes((0..<Int.random(in: 0..<40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        case 3:
            let scalars = ["a", "ü", "水", "𐅑", "\u{0}", "fmt", "attStmt"]
            return .text((0..<Int.random(in: 0..<6, using: &generator)).map { _ in scalars.randomElement(using: &generator)! }.joined())
        case 4:
            let floats: [Double] = [0, -0.0, 1.5, -4.1, 65504, 1e300, .infinity, -.infinity, 5.960464477539063e-8, 100_000]
            return .float(floats.randomElement(using: &generator)!)
        case 5:
            return .float(Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF))
        case 6:
            return .boolean(Bool.random(using: &generator))
        case 7:
            return [.null, .undefined].randomElement(using: &generator)!
        case 8:
            return .simple([0, 19, 32, 255].randomElement(using: &generator)!)
        case 9:
            return CBORValue(Int64.random(in: -1000...1000, using: &generator))
        case 10:
            return .text(String(UInt64.random(in: 0...UInt64.max, using: &generator), radix: 36))
        case 11:
            return .array((0..<Int.random(in: 0..<5, using: &generator)).map { _ in random(depth: depth - 1, using: &generator) })
        case 12:
            var entries: [CBORMapEntry] = []
            for _ in 0..<Int.random(in: 0..<5, using: &generator) {
                let key = random(depth: 0, using: &generator)
                if !entries.contains(where: { $0.key == key }) {
                    entries.append(CBORMapEntry(key: key, value: random(depth: depth - 1, using: &generator)))
                }
            }
            return .map(entries)
        default:
            return .tagged(randomArgument(using: &generator), random(depth: depth - 1, using: &generator))
        }
    }

    /// A number from each head size, so every argument width gets exercised.
    private static func randomArgument(using generator: inout SeededGenerator) -> UInt64 {
        let bits = [5, 8, 16, 32, 64].randomElement(using: &generator)!
        return generator.next() >> (64 - bits)
    }
}
