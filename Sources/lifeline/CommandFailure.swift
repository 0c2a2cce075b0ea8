import ArgumentParser
import LifelineGallery
import LifelineRender

/// Where a command's failures become messages: an error the libraries describe in words
/// (a file that cannot be written, a picture too large, a story that cannot be drawn) is
/// written to standard error as `error: …` and ends the command with exit status 2.
enum CommandFailure {
    static func reporting<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let failure as OutputFile.Failure {
            throw exit(failure)
        } catch let failure as PageFit.PictureTooLarge {
            throw exit(failure)
        } catch let failure as SampleGallery.Failure {
            throw exit(failure)
        }
    }

    private static func exit(_ failure: any Error & CustomStringConvertible) -> ExitCode {
        StandardError.write("error: \(failure)")
        return ExitCode(2)
    }
}
