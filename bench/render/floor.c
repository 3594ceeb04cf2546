/* The floor for the render benchmark: what libvips itself needs to decode four photos to cell
 * size with shrink-on-load, lay them out 2 x 2 and encode one JPEG (the same encoding as ours:
 * baseline, quality 90, 4:4:4 chroma). No collage logic at all.
 * Usage: floor OUT.jpg SIZE GAP a.jpg b.jpg c.jpg d.jpg */
#include <stdio.h>
#include <stdlib.h>
#include <vips/vips.h>

int main(int argc, char **argv) {
    if (VIPS_INIT(argv[0]) || argc != 8) {
        fprintf(stderr, "usage: floor OUT SIZE GAP a b c d\n");
        return 2;
    }
    int size = atoi(argv[2]), gap = atoi(argv[3]);
    int cell = (size - 3 * gap) / 2;
    VipsImage *cells[4];
    for (int i = 0; i < 4; i++)
        if (vips_thumbnail(argv[4 + i], &cells[i], cell, "height", cell, "crop", VIPS_INTERESTING_CENTRE, NULL))
            vips_error_exit(NULL);
    VipsImage *grid, *framed;
    double white[] = {255, 255, 255};
    if (vips_arrayjoin(cells, &grid, 4, "across", 2, "shim", gap, "background", vips_array_double_new(white, 3),
                       NULL) ||
        vips_embed(grid, &framed, gap, gap, size, size, "extend", VIPS_EXTEND_WHITE, NULL) ||
        vips_jpegsave(framed, argv[1], "Q", 90, "subsample_mode",
                      VIPS_FOREIGN_SUBSAMPLE_OFF, NULL))
        vips_error_exit(NULL);
    return 0;
}
