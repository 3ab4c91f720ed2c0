// SPDX-License-Identifier: Apache-2.0
// A top view of planar paths (x, y polylines with equal axis scales) written as plain SVG text.
#ifndef GDN_EXAMPLE_SVG_PATHS_H
#define GDN_EXAMPLE_SVG_PATHS_H

typedef struct svgPath {
    const char* label;    // legend text
    const char* color;    // CSS color
    int dashed;           // 1: dashed line
    const double* xy;     // (n x 2) points, world units
    int n;
} svgPath;

// a circle of radius r (world units) at (x, y); filled or outlined
typedef struct svgMark {
    const char* label;    // legend text, or NULL for none
    const char* color;
    double x, y, r;
    int filled;
} svgMark;

// one panel with a metre grid in tenths, the paths, the marks and a legend; 0 on success
int svg_paths_write(const char* path, const char* title, const svgPath* paths, int npath,
                    const svgMark* marks, int nmark);

#endif
