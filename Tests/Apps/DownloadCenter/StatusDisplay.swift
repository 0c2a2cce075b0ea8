/// What the status bar shows.
final class StatusDisplay {
    var totalBytes = 0
    var warmUpAverage: Int?
    var mirrors: [String] = []
    var history: [String] = []
    var shownLimit: Int?
}
