import CollageCore
import Foundation

// Reads layout cases as JSON on standard input ({"cases": [{"aspects", "canvas": [w, h],
// "spacing", "padding", "seed", "maximumCrop"?}]}) and prints, for each, AutoLayout's frames, crop and empty
// share, and its median time over repeated runs, as JSON. bench/layout/bench.py drives it.

struct Case: Decodable {
    let aspects: [Double]
    let canvas: [Double]
    let spacing: Double
    let padding: Double
    let seed: UInt64
    let maximumCrop: Double?
}

struct Input: Decodable { let cases: [Case] }

struct Output: Encodable {
    let frames: [[Double]]
    let cropLoss: [Double]
    let emptyShare: Double
    let milliseconds: Double
}

let data = FileHandle.standardInput.readDataToEndOfFile()
guard let input = try? JSONDecoder().decode(Input.self, from: data) else {
    FileHandle.standardError.write(Data("layout-bench: expected {\"cases\": [...]} on standard input\n".utf8))
    exit(64)
}
var outputs: [Output] = []
for item in input.cases {
    let canvas = Size(width: item.canvas[0], height: item.canvas[1])
    let options = AutoLayout.Options(
        seed: item.seed, maximumCrop: item.maximumCrop ?? AutoLayout.Options.defaultMaximumCrop)
    var result: AutoLayout.Result?
    var times: [Double] = []
    for _ in 0..<5 {
        let start = DispatchTime.now().uptimeNanoseconds
        result = try? AutoLayout.arrange(
            aspectRatios: item.aspects, canvas: canvas, spacing: item.spacing, padding: item.padding, options: options)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    guard let result else {
        FileHandle.standardError.write(Data("layout-bench: no layout for \(item.aspects.count) photos\n".utf8))
        exit(1)
    }
    outputs.append(
        Output(
            frames: result.frames.map { [$0.x, $0.y, $0.width, $0.height] }, cropLoss: result.cropLoss,
            emptyShare: result.emptyShare, milliseconds: times.sorted()[times.count / 2]))
}
FileHandle.standardOutput.write((try? JSONEncoder().encode(outputs)) ?? Data())
