// SPDX-License-Identifier: Apache-2.0
// Loss curves as SVG: one panel per series, log10 y axis with decade grid lines.
#include "svg_plot.h"

#include <math.h>
#include <stdio.h>

#define PANEL_W 440.0
#define PANEL_H 320.0
#define MARGIN_L 64.0
#define MARGIN_R 16.0
#define MARGIN_T 40.0
#define MARGIN_B 44.0

// one panel at horizontal offset x0: frame, decade grid, x ticks, the curve, the label
static void panel(FILE* f, double x0, const svgSeries* s) {
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (int i = 0; i < s->n; i++) {
        if (s->y[i] > 0 && isfinite(s->y[i])) {
            lo = fmin(lo, log10(s->y[i]));
            hi = fmax(hi, log10(s->y[i]));
        }
    }
    if (!(lo <= hi)) {
        lo = 0;
        hi = 1;
    }
    lo = floor(lo);
    hi = fmax(ceil(hi), lo + 1);
    double w = PANEL_W - MARGIN_L - MARGIN_R, h = PANEL_H - MARGIN_T - MARGIN_B;
    double left = x0 + MARGIN_L, top = MARGIN_T;
    int last = s->n > 1 ? s->n - 1 : 1;

    // frame and decade grid with labels 1e-k
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"white\" "
               "stroke=\"#444\"/>\n", left, top, w, h);
    int step = hi - lo > 10 ? 2 : 1;
    for (int k = (int)lo; k <= (int)hi; k += step) {
        double y = top + h * (hi - k) / (hi - lo);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                left, y, left + w, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">1e%d"
                   "</text>\n", left - 6, y + 4, k);
    }

    // x ticks: about 5 round numbers of iterations
    int tick = 1, base = 1, k = 0;
    const int mult[3] = {2, 5, 10};
    while (last / tick > 5) {
        tick = base * mult[k];
        if (k == 2) {
            base *= 10;
        }
        k = (k + 1) % 3;
    }
    for (int i = 0; i <= last; i += tick) {
        double x = left + w * i / last;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%d"
                   "</text>\n", x, top + h + 16, i);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">"
               "iteration</text>\n", left + w / 2, top + h + 34);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\">%s"
               "</text>\n", left + w / 2, top - 10, s->label);

    // the curve
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", s->color);
    for (int i = 0; i < s->n; i++) {
        if (s->y[i] > 0 && isfinite(s->y[i])) {
            double x = left + w * i / last;
            double y = top + h * (hi - log10(s->y[i])) / (hi - lo);
            fprintf(f, "%.1f,%.1f ", x, y);
        }
    }
    fprintf(f, "\"/>\n");
}

int svg_plot_write(const char* path, const char* title, const svgSeries* series, int nseries) {
    FILE* f = fopen(path, "w");
    if (!f) {
        return -1;
    }
    double width = PANEL_W * nseries, height = PANEL_H + 24;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n", width, height, width,
            height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n");
    fprintf(f, "<text x=\"%.1f\" y=\"18\" font-size=\"14\" text-anchor=\"middle\" "
               "font-weight=\"bold\">%s</text>\n", width / 2, title);
    fprintf(f, "<g transform=\"translate(0,16)\">\n");
    for (int k = 0; k < nseries; k++) {
        panel(f, PANEL_W * k, &series[k]);
    }
    fprintf(f, "</g>\n</svg>\n");
    return fclose(f) == 0 ? 0 : -1;
}
