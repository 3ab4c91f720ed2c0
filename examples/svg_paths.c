// SPDX-License-Identifier: Apache-2.0
// Planar paths as SVG: equal x and y scales, a 0.1 grid, polylines, circles and a legend.
#include "svg_paths.h"

#include <math.h>
#include <stdio.h>

#define PLOT_W 640.0
#define PLOT_H 400.0
#define MARGIN 48.0
#define LEGEND_W 250.0

// the view: world box [x0, x1] x [y0, y1] mapped to the plot with one scale
typedef struct view {
    double x0, y0, scale, left, top, h;
} view;

static double px(const view* v, double x) {
    return v->left + (x - v->x0) * v->scale;
}

static double py(const view* v, double y) {
    return v->top + v->h - (y - v->y0) * v->scale;
}

int svg_paths_write(const char* path, const char* title, const svgPath* paths, int npath,
                    const svgMark* marks, int nmark) {
    // bounding box of everything drawn, padded by 10 %
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    for (int k = 0; k < npath; k++) {
        for (int i = 0; i < paths[k].n; i++) {
            for (int c = 0; c < 2; c++) {
                lo[c] = fmin(lo[c], paths[k].xy[2 * i + c]);
                hi[c] = fmax(hi[c], paths[k].xy[2 * i + c]);
            }
        }
    }
    for (int k = 0; k < nmark; k++) {
        lo[0] = fmin(lo[0], marks[k].x - marks[k].r);
        hi[0] = fmax(hi[0], marks[k].x + marks[k].r);
        lo[1] = fmin(lo[1], marks[k].y - marks[k].r);
        hi[1] = fmax(hi[1], marks[k].y + marks[k].r);
    }
    if (!(lo[0] <= hi[0] && lo[1] <= hi[1])) {
        lo[0] = lo[1] = 0;
        hi[0] = hi[1] = 1;
    }
    double pad = 0.1 * fmax(fmax(hi[0] - lo[0], hi[1] - lo[1]), 1e-3);
    for (int c = 0; c < 2; c++) {
        lo[c] -= pad;
        hi[c] += pad;
    }
    double w = PLOT_W - 2 * MARGIN, h = PLOT_H - 2 * MARGIN;
    double scale = fmin(w / (hi[0] - lo[0]), h / (hi[1] - lo[1]));
    view v = {lo[0], lo[1], scale, MARGIN, MARGIN, (hi[1] - lo[1]) * scale};
    double width = 2 * MARGIN + (hi[0] - lo[0]) * scale + LEGEND_W, height = 2 * MARGIN + v.h;

    FILE* f = fopen(path, "w");
    if (!f) {
        return -1;
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n", width, height, width,
            height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n");
    fprintf(f, "<text x=\"%.1f\" y=\"24\" font-size=\"14\" text-anchor=\"middle\" "
               "font-weight=\"bold\">%s</text>\n", width / 2, title);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"white\" "
               "stroke=\"#444\"/>\n", px(&v, lo[0]), py(&v, hi[1]), (hi[0] - lo[0]) * scale, v.h);

    // grid lines every 0.1 with labels
    for (double g = ceil(lo[0] * 10) / 10; g <= hi[0]; g += 0.1) {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                px(&v, g), py(&v, lo[1]), px(&v, g), py(&v, hi[1]));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%.1f"
                   "</text>\n", px(&v, g), py(&v, lo[1]) + 16, fabs(g) < 1e-9 ? 0.0 : g);
    }
    for (double g = ceil(lo[1] * 10) / 10; g <= hi[1]; g += 0.1) {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                px(&v, lo[0]), py(&v, g), px(&v, hi[0]), py(&v, g));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.1f"
                   "</text>\n", px(&v, lo[0]) - 6, py(&v, g) + 4, fabs(g) < 1e-9 ? 0.0 : g);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">x (m)"
               "</text>\n", px(&v, 0.5 * (lo[0] + hi[0])), height - 8);
    fprintf(f, "<text x=\"14\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
               "transform=\"rotate(-90 14 %.1f)\">y (m)</text>\n", MARGIN + v.h / 2,
            MARGIN + v.h / 2);

    // the marks, then the paths over them
    for (int k = 0; k < nmark; k++) {
        const svgMark* mk = &marks[k];
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" stroke=\"%s\" "
                   "stroke-width=\"1.5\" fill-opacity=\"0.35\"/>\n", px(&v, mk->x), py(&v, mk->y),
                fmax(mk->r * scale, 2.0), mk->filled ? mk->color : "none", mk->color);
    }
    for (int k = 0; k < npath; k++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
                paths[k].color, paths[k].dashed ? " stroke-dasharray=\"6 4\"" : "");
        for (int i = 0; i < paths[k].n; i++) {
            fprintf(f, "%.1f,%.1f ", px(&v, paths[k].xy[2 * i]), py(&v, paths[k].xy[2 * i + 1]));
        }
        fprintf(f, "\"/>\n");
    }

    // the legend, right of the plot
    double lx = 2 * MARGIN + (hi[0] - lo[0]) * scale - 20, ly = MARGIN + 10;
    for (int k = 0; k < npath; k++, ly += 20) {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                   "stroke-width=\"2\"%s/>\n", lx, ly, lx + 28, ly, paths[k].color,
                paths[k].dashed ? " stroke-dasharray=\"6 4\"" : "");
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s</text>\n", lx + 36, ly + 4,
                paths[k].label);
    }
    for (int k = 0; k < nmark; k++) {
        if (!marks[k].label) {
            continue;
        }
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"%s\" stroke=\"%s\" "
                   "fill-opacity=\"0.35\"/>\n", lx + 14, ly, marks[k].filled ? marks[k].color
                   : "none", marks[k].color);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s</text>\n", lx + 36, ly + 4,
                marks[k].label);
        ly += 20;
    }
    fprintf(f, "</svg>\n");
    return fclose(f) == 0 ? 0 : -1;
}
