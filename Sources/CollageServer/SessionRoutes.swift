import CollageCore
import CollageKit
import CollageRender

/// What the page asks for once, when it opens: its token and the editor's bounds, the fonts,
/// the layouts, the canvas presets, and this API's own description.
enum SessionRoutes {
    static let all: [Route] = [
        Route(
            "GET", "/api/session", "getSession", "The token state-changing requests carry, and who is asking",
            responses: [200: "{token, stickers, …, canPair, homeNetwork, device?}"]
        ) { app, request in session(app, request) },
        Route(
            "GET", "/api/fonts", "listFonts", "The curated fonts of text items, in menu order",
            responses: [200: "fonts"]
        ) { _, _ in
            .json(
                .object([
                    "fonts": .array(
                        TextFont.catalog.map { font in
                            .object([
                                "family": .string(font.family), "kind": .string(font.kind),
                                "cssFallback": .string(font.cssFallback), "licence": .string(font.licence),
                            ])
                        })
                ]))
        },
        Route("GET", "/api/openapi.json", "getOpenAPI", "This document", responses: [200: "OpenAPI 3"]) { app, _ in
            .json(app.openAPIDocument)
        },
        Route("GET", "/api/templates", "listTemplates", "Layouts with their unit slots", responses: [200: "templates"])
        { _, _ in templates() },
        Route(
            "GET", "/api/canvas-presets", "listCanvasPresets", "Canvas shapes and print sizes",
            responses: [200: "presets"]
        ) { _, _ in presets() },
        Route(
            "GET", "/api/filters", "listFilters",
            "The photo filters (id, name) and the adjustments a photo's look takes (name, min, max)",
            responses: [200: "{filters, adjustments}"]
        ) { _, _ in filters() },
        Route(
            "GET", "/api/shapes", "listShapes",
            "The shapes a photo may be cut to (id, name, keepsProportions, outline: unit x, y pairs in a frame 1.4 "
                + "times as wide as tall, as the editor's tray draws them)",
            responses: [200: "{shapes}"]
        ) { _, _ in shapes() },
    ]

    static func shapes() -> HTTPResponse {
        .json(
            .object([
                "shapes": .array(
                    PhotoShape.allCases.map { shape in
                        .object([
                            "id": .string(shape.rawValue), "name": .string(shape.name),
                            "keepsProportions": .bool(shape.keepsProportions),
                            "outline": CollageDocument.flatJSONValue(
                                of: shape.outline(in: Size(width: 1.4, height: 1), cornerRadius: 0.12)),
                        ])
                    })
            ]))
    }

    static func filters() -> HTTPResponse {
        .json(
            .object([
                "filters": .array(
                    Filter.catalog.map { .object(["id": .string($0.id), "name": .string($0.name)]) }),
                "adjustments": .array(
                    Adjustments.fields.map { field in
                        .object([
                            "name": .string(field.name), "min": .number(field.range.lowerBound),
                            "max": .number(field.range.upperBound),
                        ])
                    }),
            ]))
    }

    static func session(_ app: CollageApp, _ request: HTTPRequest) -> HTTPResponse {
        var members: [String: JSONValue] = [
            "token": .string(app.token), "stickers": .bool(app.workspace.hasModel),
            // The editor's gestures keep to the same bound the edits are checked against.
            "minimumItemSide": .number(EditRules.minimumItemSide),
            "minimumVisible": .number(EditRules.minimumVisible),
            "maximumTextLength": .number(Double(Limits.maximumTextLength)),
            "homeNetwork": .bool(app.homeNetwork != nil), "canPair": .bool(false),
            // Leads the editor's keys of drawn items, so a browser's cached drawing of an
            // older look is not shown after the renderer draws it anew.
            "drawingGeneration": .string(StickerEffects.drawingGeneration),
        ]
        switch try? app.identify(request) {
        case .thisComputer: members["canPair"] = .bool(true)
        case .device(let device): members["device"] = RecordJSON.device(device)
        case .stranger, nil: break
        }
        return .json(.object(members))
    }

    static func templates() -> HTTPResponse {
        .json(
            .array(
                Template.catalog.map { template in
                    .object([
                        "id": .string(template.id), "name": .string(template.name), "symbol": .string(template.symbol),
                        "premium": .bool(template.isPremium), "slots": .number(Double(template.slotCount)),
                        "unitSlots": .array(template.slots.map { CollageDocument.jsonValue(of: $0) }),
                        "shapes": .array(template.slots.indices.map { .string(template.shape(ofSlot: $0).rawValue) }),
                    ])
                }))
    }

    static func presets() -> HTTPResponse {
        .json(
            .array(
                CanvasPreset.all.map { preset in
                    var members: [String: JSONValue] = [
                        "id": .string(preset.id), "name": .string(preset.name),
                        "aspect": .string(preset.aspect.description),
                        "canvas": .object([
                            "width": .number(preset.canvasSize.width), "height": .number(preset.canvasSize.height),
                        ]),
                    ]
                    if let inches = preset.printInches {
                        members["inches"] = .object(["width": .number(inches.width), "height": .number(inches.height)])
                    }
                    return .object(members)
                }))
    }
}
