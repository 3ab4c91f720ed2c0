#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Writes the small test meshes of tests/test_mjcf_mesh.c (run once; the outputs are committed).
import math
import random
import struct


def write_stl_binary(path, tris):
    with open(path, "wb") as f:
        f.write(b"gradyn test mesh".ljust(80, b" "))
        f.write(struct.pack("<I", len(tris)))
        for t in tris:
            f.write(struct.pack("<3f", 0, 0, 0))
            for v in t:
                f.write(struct.pack("<3f", *v))
            f.write(b"\0\0")


def write_stl_ascii(path, tris):
    with open(path, "w") as f:
        f.write("solid cube\n")
        for t in tris:
            f.write(" facet normal 0 0 0\n  outer loop\n")
            for v in t:
                f.write("   vertex %r %r %r\n" % v)
            f.write("  endloop\n endfacet\n")
        f.write("endsolid cube\n")


# tetrahedron, outward triangles
P = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.8, 0.0), (0.1, 0.2, 0.7)]
write_stl_binary("tetra.stl", [(P[0], P[2], P[1]), (P[0], P[1], P[3]), (P[1], P[2], P[3]),
                               (P[2], P[0], P[3])])

# box 0.6 x 0.4 x 0.3 off the origin, 12 outward triangles, binary and ASCII
lo, hi = (-0.1, 0.2, 0.05), (0.5, 0.6, 0.35)
C = [(hi[0] if i & 1 else lo[0], hi[1] if i & 2 else lo[1], hi[2] if i & 4 else lo[2])
     for i in range(8)]
quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
cube = []
for a, b, c, d in quads:
    cube += [(C[a], C[b], C[c]), (C[a], C[c], C[d])]
write_stl_binary("cube_bin.stl", cube)
write_stl_ascii("cube_ascii.stl", cube)

# irregular convex polyhedron: points on a squashed, shifted ellipsoid (vertices only: hull)
random.seed(7)
with open("poly.obj", "w") as f:
    f.write("# irregular convex polyhedron (vertices only)\n")
    for i in range(14):
        z = random.uniform(-1, 1)
        a = random.uniform(0, 2 * math.pi)
        r = math.sqrt(1 - z * z)
        f.write("v %.6f %.6f %.6f\n" % (0.3 + 0.25 * r * math.cos(a), -0.1 + 0.15 * r * math.sin(a),
                                       0.2 + 0.1 * z))

# non-convex L prism: triangles top/bottom (fan from the corner), quads on the sides
L = [(0, 0), (0.4, 0), (0.4, 0.2), (0.2, 0.2), (0.2, 0.4), (0, 0.4)]
with open("lshape.obj", "w") as f:
    f.write("# L-shaped prism, non-convex\n")
    for x, y in L:
        f.write("v %g %g 0\n" % (x, y))
    for x, y in L:
        f.write("v %g %g 0.1\n" % (x, y))
    for i in range(1, 5):
        f.write("f %d %d %d\n" % (7, 7 + i, 7 + i + 1))          # top, counter-clockwise
        f.write("f %d %d %d\n" % (1, 1 + i + 1, 1 + i))          # bottom, reversed
    for i in range(6):
        j = (i + 1) % 6
        if i == 5:   # one face with negative (relative) indices: -12 is vertex 1
            f.write("f -7 -12 -6 -1\n")
        else:
            f.write("f %d %d %d %d\n" % (1 + i, 1 + j, 7 + j, 7 + i))
