import ArgumentParser
import LifelineRender

extension PictureFormat: ExpressibleByArgument {}

extension PictureTheme: ExpressibleByArgument {}

extension SequenceDiagramOptions.Collapse: ExpressibleByArgument {}
