#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// Loads a profile through a callback API that fails, wrapped in a `Future`.
struct ProfileLoader {
    /// Why a load failed.
    struct LoadError: Error {}

    /// Whether the future's promise is called on failure too (the fix), or only on success.
    let keepsEveryPromise: Bool

    /// The callback API: this one always fails.
    private func load(id: Int, completion: (Result<String, LoadError>) -> Void) {
        completion(.failure(LoadError()))
    }

    /// The profile with `id`, once loaded.
    func profile(id: Int) -> Future<String, LoadError> {
        Future { promise in
            load(id: id) { result in
                if keepsEveryPromise {
                    promise(result)
                } else if case .success = result {
                    promise(result)
                }
            }
        }
    }
}
