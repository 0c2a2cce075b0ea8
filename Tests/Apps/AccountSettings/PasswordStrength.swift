/// How strong the password being typed is.
enum PasswordStrength: Equatable {
    case tooShort
    case weak
    case strong

    /// Why a password cannot be used at all.
    struct Refusal: Error {
        let reason: String
    }

    /// Rates `password`, or throws when it cannot be used.
    init(rating password: String) throws {
        guard password.count >= 8 else { throw Refusal(reason: "shorter than 8 characters") }
        self = password.contains(" ") || password.contains(where: \.isNumber) ? .strong : .weak
    }
}
