// SPDX-License-Identifier: Apache-2.0
// Mesh file readers: binary STL and OBJ vertex lists (deduplicated) and triangles.
#include "mjcf/mesh_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"

// raw vertex references before deduplication (an STL repeats each vertex per triangle)
#define MAX_RAW_VERTICES (3 * GDN_MESH_MAX_VERTICES)

gdnMeshFormat gdn_mesh_format_of(const char* path) {
    const char* dot = path ? strrchr(path, '.') : NULL;
    if (!dot || strchr(dot, '/')) {
        return GDN_MESH_UNKNOWN;
    }
    char ext[5] = {0};
    size_t n = strlen(dot + 1);
    if (n != 3) {
        return GDN_MESH_UNKNOWN;
    }
    for (size_t i = 0; i < n; i++) {
        ext[i] = (char)tolower((unsigned char)dot[1 + i]);
    }
    if (!strcmp(ext, "stl")) {
        return GDN_MESH_STL;
    }
    if (!strcmp(ext, "obj")) {
        return GDN_MESH_OBJ;
    }
    return GDN_MESH_UNKNOWN;
}

// ---------------------------------------------------------------- growing vertex list

typedef struct VertList {
    double* v; // (n x 3)
    int n, cap;
} VertList;

// append one vertex; 0 when the limit is reached or memory runs out
static int push_vertex(VertList* l, double x, double y, double z) {
    if (l->n == l->cap) {
        if (l->cap >= MAX_RAW_VERTICES) {
            return 0;
        }
        int cap = l->cap ? 2 * l->cap : 64;
        cap = cap > MAX_RAW_VERTICES ? MAX_RAW_VERTICES : cap;
        double* v = realloc(l->v, sizeof(double) * 3 * (size_t)cap);
        if (!v) {
            return 0;
        }
        l->v = v;
        l->cap = cap;
    }
    double* p = l->v + 3 * l->n++;
    p[0] = x;
    p[1] = y;
    p[2] = z;
    return 1;
}

// a growing list of triangle vertex ids (3 per triangle)
typedef struct FaceList {
    int* f;
    int n, cap; // ints
} FaceList;

// append the triangle (a, b, c); 0 when the limit is reached or memory runs out
static int push_triangle(FaceList* l, int a, int b, int c) {
    if (l->n + 3 > l->cap) {
        if (l->cap >= 3 * MAX_RAW_VERTICES) {
            return 0;
        }
        int cap = l->cap ? 2 * l->cap : 192;
        cap = cap > 3 * MAX_RAW_VERTICES ? 3 * MAX_RAW_VERTICES : cap;
        int* f = realloc(l->f, sizeof(int) * (size_t)cap);
        if (!f) {
            return 0;
        }
        l->f = f;
        l->cap = cap;
    }
    l->f[l->n++] = a;
    l->f[l->n++] = b;
    l->f[l->n++] = c;
    return 1;
}

// ---------------------------------------------------------------- deduplication

// a vertex with its index: sorting these needs no global state (the loader may run in threads)
typedef struct SortKey {
    double p[3];
    int index;
} SortKey;

// lexicographic (x, y, z), then index: a total order, so qsort's result is deterministic
static int compare_vertex(const void* a, const void* b) {
    const SortKey* u = a;
    const SortKey* v = b;
    for (int k = 0; k < 3; k++) {
        if (u->p[k] < v->p[k]) {
            return -1;
        }
        if (u->p[k] > v->p[k]) {
            return 1;
        }
    }
    return (u->index > v->index) - (u->index < v->index);
}

// keep the first occurrence of every position (equal coordinates compare equal, so -0 == 0)
// and compact in place, preserving order; 0 when memory runs out
static int dedup(VertList* l) {
    if (l->n < 2) {
        return 1;
    }
    SortKey* keys = malloc(sizeof(SortKey) * (size_t)l->n);
    unsigned char* dup = calloc((size_t)l->n, 1);
    if (!keys || !dup) {
        free(keys);
        free(dup);
        return 0;
    }
    for (int i = 0; i < l->n; i++) {
        memcpy(keys[i].p, l->v + 3 * i, 3 * sizeof(double));
        keys[i].index = i;
    }
    qsort(keys, (size_t)l->n, sizeof(SortKey), compare_vertex);
    for (int s = 1; s < l->n; s++) {
        const double* p = keys[s - 1].p;
        const double* q = keys[s].p;
        if (p[0] == q[0] && p[1] == q[1] && p[2] == q[2]) {
            dup[keys[s].index] = 1; // sorted by index within equal runs: the first one stays
        }
    }
    int n = 0;
    for (int i = 0; i < l->n; i++) {
        if (!dup[i]) {
            memmove(l->v + 3 * n, l->v + 3 * i, 3 * sizeof(double));
            n++;
        }
    }
    l->n = n;
    free(keys);
    free(dup);
    return 1;
}

int gdn_mesh_dedup(double* v, int n) {
    VertList l = {v, n, n};
    return dedup(&l) ? l.n : -1;
}

// ---------------------------------------------------------------- text tokens

typedef struct Cursor {
    const unsigned char* p;
    const unsigned char* end;
    int line;
} Cursor;

static int is_blank(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

// skip blanks (and newlines when cross_lines); counts lines
static void skip_space(Cursor* c, int cross_lines) {
    while (c->p < c->end && (is_blank(*c->p) || (cross_lines && *c->p == '\n'))) {
        c->line += *c->p == '\n';
        c->p++;
    }
}

// the next token (up to whitespace) as a NUL-terminated copy; 0 at the end of the line / input
// (or when it does not fit in buf, then *too_long is set)
static int next_token(Cursor* c, int cross_lines, char* buf, size_t size, int* too_long) {
    skip_space(c, cross_lines);
    size_t n = 0;
    *too_long = 0;
    while (c->p < c->end && !is_blank(*c->p) && *c->p != '\n') {
        if (n + 1 >= size) {
            *too_long = 1;
            return 0;
        }
        buf[n++] = (char)*c->p++;
    }
    buf[n] = '\0';
    return n > 0;
}

// a finite decimal number filling the whole token
static int parse_number(const char* s, double* out) {
    char* end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v)) {
        return 0;
    }
    *out = v;
    return 1;
}

// three numbers on the current line into xyz; 0 when missing or malformed
static int read_xyz(Cursor* c, double xyz[3]) {
    char tok[128];
    int too_long;
    for (int k = 0; k < 3; k++) {
        if (!next_token(c, 0, tok, sizeof(tok), &too_long) || !parse_number(tok, &xyz[k])) {
            return 0;
        }
    }
    return 1;
}

// ---------------------------------------------------------------- formats

static uint32_t read_u32le(const unsigned char* p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float read_f32le(const unsigned char* p) {
    uint32_t u = read_u32le(p);
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

// binary STL: 80-byte header, uint32 count, count x (normal, 3 vertices: 12 float32; 2 bytes)
static gdnStatus parse_stl_binary(const unsigned char* b, size_t len, VertList* l, char* cause,
                                  int cause_size) {
    uint32_t ntri = read_u32le(b + 80);
    for (uint32_t t = 0; t < ntri; t++) {
        const unsigned char* tri = b + 84 + 50 * (size_t)t;
        for (int k = 0; k < 3; k++) {
            const unsigned char* v = tri + 12 + 12 * k;
            double x = read_f32le(v), y = read_f32le(v + 4), z = read_f32le(v + 8);
            if (!isfinite(x) || !isfinite(y) || !isfinite(z)) {
                return gdn_fail(GDN_ERR_PARSE, cause, cause_size,
                                "binary STL: non-finite coordinate in triangle %u", (unsigned)t);
            }
            // MuJoCo's bound (vertex coordinates must convert to int safely)
            if (fabs(x) > 1073741824.0 || fabs(y) > 1073741824.0 || fabs(z) > 1073741824.0) {
                return gdn_fail(GDN_ERR_PARSE, cause, cause_size,
                                "binary STL: vertex coordinates exceed 2^30 (triangle %u)",
                                (unsigned)t);
            }
            if (!push_vertex(l, x, y, z)) {
                return gdn_fail(GDN_ERR_MEMORY, cause, cause_size,
                                "binary STL: out of memory or more than %d vertices",
                                MAX_RAW_VERTICES);
            }
        }
    }
    (void)len;
    return GDN_OK;
}

// the vertex id of an OBJ face corner "v[/vt[/vn]]" (1-based, negative = relative to the
// vertices read so far); -1 when malformed
static int obj_corner(const char* tok, int nvert_so_far) {
    char* end = NULL;
    errno = 0;
    long id = strtol(tok, &end, 10);
    if (end == tok || (*end && *end != '/') || errno) {
        return -1;
    }
    if (id > 0 && id <= MAX_RAW_VERTICES) {
        return (int)(id - 1);
    }
    if (id < 0 && -id <= nvert_so_far) {
        return (int)(nvert_so_far + id);
    }
    return -1;
}

// one "f" line: a polygon of at least 3 corners, fan-triangulated (0 1 2), (0 2 3), ...
static gdnStatus parse_obj_face(Cursor* c, int nvert_so_far, FaceList* faces, char* cause,
                                int cause_size) {
    char tok[128];
    int too_long, first = -1, prev = -1, count = 0;
    while (next_token(c, 0, tok, sizeof(tok), &too_long)) {
        int id = obj_corner(tok, nvert_so_far);
        if (id < 0) {
            return gdn_fail(GDN_ERR_PARSE, cause, cause_size, "OBJ line %d: bad face vertex '%s'",
                            c->line, tok);
        }
        if (count == 0) {
            first = id;
        } else if (count >= 2 && !push_triangle(faces, first, prev, id)) {
            return gdn_fail(GDN_ERR_MEMORY, cause, cause_size,
                            "OBJ: out of memory or more than %d triangles", MAX_RAW_VERTICES);
        }
        prev = id;
        count++;
    }
    if (too_long || count < 3) {
        return gdn_fail(GDN_ERR_PARSE, cause, cause_size,
                        "OBJ line %d: a face needs at least 3 vertex ids", c->line);
    }
    return GDN_OK;
}

// OBJ: "v x y z [w ...]" lines give vertices, "f" lines faces (when faces is not NULL); every
// other line is ignored
static gdnStatus parse_obj(const unsigned char* b, size_t len, VertList* l, FaceList* faces,
                           char* cause, int cause_size) {
    Cursor c = {b, b + len, 1};
    while (c.p < c.end) {
        skip_space(&c, 0);
        int is_vertex = c.end - c.p >= 2 && c.p[0] == 'v' && is_blank(c.p[1]);
        int is_face = faces && c.end - c.p >= 2 && c.p[0] == 'f' && is_blank(c.p[1]);
        if (is_vertex) {
            c.p++;
            double xyz[3];
            if (!read_xyz(&c, xyz)) {
                return gdn_fail(GDN_ERR_PARSE, cause, cause_size,
                                "OBJ line %d: 'v' needs three finite numbers", c.line);
            }
            if (!push_vertex(l, xyz[0], xyz[1], xyz[2])) {
                return gdn_fail(GDN_ERR_MEMORY, cause, cause_size,
                                "OBJ: out of memory or more than %d vertices", MAX_RAW_VERTICES);
            }
        } else if (is_face) {
            c.p++;
            gdnStatus st = parse_obj_face(&c, l->n, faces, cause, cause_size);
            if (st != GDN_OK) {
                return st;
            }
        }
        // rest of the line
        while (c.p < c.end && *c.p != '\n') {
            c.p++;
        }
        if (c.p < c.end) {
            c.p++;
            c.line++;
        }
    }
    if (faces) {
        for (int i = 0; i < faces->n; i++) {
            if (faces->f[i] >= l->n) {
                return gdn_fail(GDN_ERR_PARSE, cause, cause_size,
                                "OBJ: face vertex %d out of range (%d vertices)", faces->f[i] + 1,
                                l->n);
            }
        }
    }
    return GDN_OK;
}

// MuJoCo 2.2.2 reads binary STL only: at least the 84-byte header, 1 to 200000 triangles,
// exactly 84 + 50 * count bytes (an ASCII STL fails these, as it does in MuJoCo)
static gdnStatus stl_check_binary(const unsigned char* b, size_t len, char* cause,
                                  int cause_size) {
    int binary_size = len >= 84 && (uint64_t)len == 84 + 50 * (uint64_t)read_u32le(b + 80);
    const char* ascii = len >= 5 && !memcmp(b, "solid", 5) && !binary_size
                            ? " (an ASCII STL: MuJoCo 2.2.2 reads binary STL only)"
                            : "; perhaps this is an ASCII file? (MuJoCo 2.2.2 reads binary STL "
                              "only)";
    if (len == 0) {
        return gdn_fail(GDN_ERR_PARSE, cause, cause_size, "STL file is empty");
    }
    if (len < 84) {
        return gdn_fail(GDN_ERR_PARSE, cause, cause_size, "invalid STL header%s", ascii);
    }
    uint64_t ntri = read_u32le(b + 80);
    if (ntri < 1 || ntri > 200000) {
        return gdn_fail(GDN_ERR_PARSE, cause, cause_size,
                        "number of faces should be between 1 and 200000%s", ascii);
    }
    if ((uint64_t)len != 84 + 50 * ntri) {
        return gdn_fail(GDN_ERR_PARSE, cause, cause_size,
                        "STL has the wrong size (not 84 + 50 * %u triangles)%s", (unsigned)ntri,
                        ascii);
    }
    return GDN_OK;
}

// vertices (and faces when faces is not NULL) of any supported format, not deduplicated
static gdnStatus parse_any(gdnMeshFormat format, const unsigned char* bytes, size_t len,
                           VertList* l, FaceList* faces, char* cause, int cause_size) {
    gdnStatus status;
    if (format == GDN_MESH_STL) {
        status = stl_check_binary(bytes, len, cause, cause_size);
        if (status == GDN_OK) {
            status = parse_stl_binary(bytes, len, l, cause, cause_size);
        }
        if (status == GDN_OK && l->n % 3) {
            status = gdn_fail(GDN_ERR_PARSE, cause, cause_size,
                              "STL: vertex count is not a multiple of 3");
        }
        for (int t = 0; status == GDN_OK && faces && t < l->n / 3; t++) {
            if (!push_triangle(faces, 3 * t, 3 * t + 1, 3 * t + 2)) {
                status = gdn_fail(GDN_ERR_MEMORY, cause, cause_size, "out of memory");
            }
        }
    } else if (format == GDN_MESH_OBJ) {
        status = parse_obj(bytes, len, l, faces, cause, cause_size);
    } else {
        status = gdn_fail(GDN_ERR_UNSUPPORTED, cause, cause_size,
                          "unsupported mesh format (STL and OBJ only)");
    }
    if (status == GDN_OK && l->n == 0) {
        status = gdn_fail(GDN_ERR_PARSE, cause, cause_size, "mesh has no vertices");
    }
    return status;
}

gdnStatus gdn_mesh_parse(gdnMeshFormat format, const unsigned char* bytes, size_t len,
                         double** verts, int* nvert, char* cause, int cause_size) {
    if (!verts || !nvert || (!bytes && len)) {
        return gdn_fail(GDN_ERR_ARG, cause, cause_size, "NULL argument");
    }
    *verts = NULL;
    *nvert = 0;
    VertList l = {NULL, 0, 0};
    gdnStatus status = parse_any(format, bytes, len, &l, NULL, cause, cause_size);
    if (status == GDN_OK && !dedup(&l)) {
        status = gdn_fail(GDN_ERR_MEMORY, cause, cause_size, "out of memory");
    }
    if (status == GDN_OK && l.n > GDN_MESH_MAX_VERTICES) {
        status = gdn_fail(GDN_ERR_PARSE, cause, cause_size, "more than %d distinct vertices",
                          GDN_MESH_MAX_VERTICES);
    }
    if (status != GDN_OK) {
        free(l.v);
        return status;
    }
    *verts = l.v;
    *nvert = l.n;
    return GDN_OK;
}

gdnStatus gdn_mesh_parse_triangles(gdnMeshFormat format, const unsigned char* bytes, size_t len,
                                   gdnMeshTriangles* out, char* cause, int cause_size) {
    if (!out || (!bytes && len)) {
        return gdn_fail(GDN_ERR_ARG, cause, cause_size, "NULL argument");
    }
    memset(out, 0, sizeof(*out));
    VertList l = {NULL, 0, 0};
    FaceList f = {NULL, 0, 0};
    gdnStatus status = parse_any(format, bytes, len, &l, &f, cause, cause_size);
    if (status != GDN_OK) {
        free(l.v);
        free(f.f);
        return status;
    }
    out->vert = l.v;
    out->nvert = l.n;
    out->face = f.f;
    out->nface = f.n / 3;
    return GDN_OK;
}

void gdn_mesh_triangles_free(gdnMeshTriangles* t) {
    if (t) {
        free(t->vert);
        free(t->face);
        memset(t, 0, sizeof(*t));
    }
}

// the whole file (at most GDN_MESH_MAX_FILE_BYTES) in *buf (malloc'ed), its format checked
static gdnStatus read_bytes(const char* path, unsigned char** out, size_t* out_len,
                            gdnMeshFormat* format, char* cause, int cause_size) {
    *out = NULL;
    *out_len = 0;
    *format = gdn_mesh_format_of(path);
    if (*format == GDN_MESH_UNKNOWN) {
        return gdn_fail(GDN_ERR_UNSUPPORTED, cause, cause_size,
                        "unsupported mesh format (extension .stl or .obj expected)");
    }
    FILE* f = fopen(path, "rb");
    if (!f) {
        return gdn_fail(GDN_ERR_IO, cause, cause_size, "cannot open: %s", strerror(errno));
    }
    unsigned char* buf = NULL;
    size_t len = 0, cap = 0;
    gdnStatus status = GDN_OK;
    for (;;) {
        if (len == cap) {
            if (cap >= GDN_MESH_MAX_FILE_BYTES) {
                status = gdn_fail(GDN_ERR_IO, cause, cause_size, "file larger than %u bytes",
                                  GDN_MESH_MAX_FILE_BYTES);
                break;
            }
            size_t next = cap ? 2 * cap : 65536;
            next = next > GDN_MESH_MAX_FILE_BYTES ? GDN_MESH_MAX_FILE_BYTES : next;
            unsigned char* grown = realloc(buf, next + 1);
            if (!grown) {
                status = gdn_fail(GDN_ERR_MEMORY, cause, cause_size, "out of memory");
                break;
            }
            buf = grown;
            cap = next;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                status = gdn_fail(GDN_ERR_IO, cause, cause_size, "read error");
            }
            break;
        }
    }
    fclose(f);
    if (status != GDN_OK) {
        free(buf);
        return status;
    }
    *out = buf;
    *out_len = len;
    return GDN_OK;
}

gdnStatus gdn_mesh_read_triangles(const char* path, gdnMeshTriangles* out, char* cause,
                                  int cause_size) {
    if (!out || !path) {
        return gdn_fail(GDN_ERR_ARG, cause, cause_size, "NULL argument");
    }
    memset(out, 0, sizeof(*out));
    unsigned char* buf;
    size_t len;
    gdnMeshFormat format;
    gdnStatus status = read_bytes(path, &buf, &len, &format, cause, cause_size);
    if (status == GDN_OK) {
        status = gdn_mesh_parse_triangles(format, buf, len, out, cause, cause_size);
    }
    free(buf);
    return status;
}
