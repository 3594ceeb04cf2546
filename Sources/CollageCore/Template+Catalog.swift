extension Template {
    /// Every layout, in the order a picker shows them. The first four are the original app's.
    ///
    /// `isPremium` is the one table of what Collage Premium unlocks: the grids and the strip stay
    /// free, so a new user can make real collages and judge the app before buying.
    public static let catalog: [Template] = [
        Template(
            id: "grid2x2", name: "Grid", symbol: "square.grid.2x2", isPremium: false,
            slots: grid(columns: 2, rows: 2)),
        Template(
            id: "magazine", name: "Magazine", symbol: "rectangle.split.1x2", isPremium: true,
            slots: [unit(0, 0, 0.55, 1), unit(0.55, 0, 0.45, 0.5), unit(0.55, 0.5, 0.45, 0.5)]),
        Template(
            id: "strip", name: "Strip", symbol: "rectangle.split.3x1", isPremium: false,
            slots: grid(columns: 3, rows: 1)),
        Template(
            id: "triptych", name: "Triptych", symbol: "rectangle.split.2x1", isPremium: true,
            slots: [unit(0, 0, 1, 0.6), unit(0, 0.6, 0.5, 0.4), unit(0.5, 0.6, 0.5, 0.4)]),
        Template(
            id: "sideBySide", name: "Side by Side", symbol: "rectangle.split.2x1", isPremium: false,
            slots: grid(columns: 2, rows: 1)),
        Template(
            id: "stacked", name: "Stacked", symbol: "rectangle.split.1x2", isPremium: false,
            slots: grid(columns: 1, rows: 2)),
        Template(
            id: "grid3x3", name: "Grid 3×3", symbol: "square.grid.3x3", isPremium: false,
            slots: grid(columns: 3, rows: 3)),
        Template(
            id: "grid2x3", name: "Grid 2×3", symbol: "square.grid.3x2", isPremium: false,
            slots: grid(columns: 2, rows: 3)),
        Template(
            id: "grid3x2", name: "Grid 3×2", symbol: "square.grid.3x2", isPremium: false,
            slots: grid(columns: 3, rows: 2)),
        Template(
            id: "onePlusTwo", name: "One and Two", symbol: "rectangle.split.1x2", isPremium: true,
            slots: [unit(0, 0, 1, 0.5), unit(0, 0.5, 0.5, 0.5), unit(0.5, 0.5, 0.5, 0.5)]),
        Template(
            id: "twoPlusOne", name: "Two and One", symbol: "rectangle.split.1x2", isPremium: true,
            slots: [unit(0, 0, 0.5, 0.5), unit(0.5, 0, 0.5, 0.5), unit(0, 0.5, 1, 0.5)]),
        Template(
            id: "heroPlusThree", name: "Hero", symbol: "rectangle.grid.1x2", isPremium: true,
            slots: [unit(0, 0, 1, 2.0 / 3)] + (0..<3).map { unit(Double($0) / 3, 2.0 / 3, 1.0 / 3, 1.0 / 3) }),
        Template(
            id: "onePlusThree", name: "Feature Column", symbol: "rectangle.leadinghalf.inset.filled",
            isPremium: true,
            slots: [unit(0, 0, 2.0 / 3, 1)] + (0..<3).map { unit(2.0 / 3, Double($0) / 3, 1.0 / 3, 1.0 / 3) }),
        Template(
            id: "fourColumns", name: "Four Columns", symbol: "rectangle.split.3x1", isPremium: true,
            slots: grid(columns: 4, rows: 1)),
        Template(
            id: "brick", name: "Brick", symbol: "square.grid.3x1.below.line.grid.1x2", isPremium: true,
            slots: [
                unit(0, 0, 0.5, 1.0 / 3), unit(0.5, 0, 0.5, 1.0 / 3),
                unit(0, 1.0 / 3, 0.25, 1.0 / 3), unit(0.25, 1.0 / 3, 0.5, 1.0 / 3), unit(0.75, 1.0 / 3, 0.25, 1.0 / 3),
                unit(0, 2.0 / 3, 0.5, 1.0 / 3), unit(0.5, 2.0 / 3, 0.5, 1.0 / 3),
            ]),
        Template(
            id: "bigCenter", name: "Centrepiece", symbol: "square.split.bottomrightquarter", isPremium: true,
            slots: [
                unit(0.25, 0, 0.5, 1),
                unit(0, 0, 0.25, 0.5), unit(0, 0.5, 0.25, 0.5),
                unit(0.75, 0, 0.25, 0.5), unit(0.75, 0.5, 0.25, 0.5),
            ]),
        Template(
            id: "grid3x4", name: "Poster 3×4", symbol: "square.grid.3x3.fill", isPremium: false,
            slots: grid(columns: 3, rows: 4)),
        Template(
            id: "grid4x4", name: "Grid 4×4", symbol: "square.grid.4x3.fill", isPremium: false,
            slots: grid(columns: 4, rows: 4)),
        Template(
            id: "hearts", name: "Hearts", symbol: "heart.fill", isPremium: false,
            slots: grid(columns: 2, rows: 2), shapes: Array(repeating: .heart, count: 4)),
        Template(
            id: "bubbles", name: "Bubbles", symbol: "circle.grid.2x1.fill", isPremium: true,
            slots: [unit(0, 0, 0.6, 1), unit(0.6, 0, 0.4, 0.5), unit(0.6, 0.5, 0.4, 0.5)],
            shapes: [.circle, .circle, .circle]),
    ]

    private static func unit(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> Rect {
        Rect(x: x, y: y, width: width, height: height)
    }

    /// Equal cells in reading order.
    private static func grid(columns: Int, rows: Int) -> [Rect] {
        (0..<rows).flatMap { row in
            (0..<columns).map { column in
                unit(
                    Double(column) / Double(columns), Double(row) / Double(rows), 1 / Double(columns),
                    1 / Double(rows))
            }
        }
    }
}
