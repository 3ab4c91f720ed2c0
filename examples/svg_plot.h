// SPDX-License-Identifier: Apache-2.0
// A line plot of loss curves (log10 y axis) written as plain SVG text.
#ifndef GDN_EXAMPLE_SVG_PLOT_H
#define GDN_EXAMPLE_SVG_PLOT_H

typedef struct svgSeries {
    const char* label;    // legend text
    const char* color;    // CSS color
    const double* y;      // values (> 0; plotted as log10)
    int n;                // points at x = 0 .. n-1
} svgSeries;

// one panel per series, side by side, each with its own axes; 0 on success
int svg_plot_write(const char* path, const char* title, const svgSeries* series, int nseries);

#endif
