/// A JSON value, as the reader needs it: numbers keep their integer form, and an object keeps
/// its members in order (a log line has a handful of keys, so looking one up in order is
/// faster than hashing).
enum JSONValue {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent, from 0 to `UInt64.max`.
    case unsigned(UInt64)
    /// A negative number written without fraction or exponent, from `Int64.min` to -1.
    case negative(Int64)
    /// Any other number.
    case fraction(Double)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

}
