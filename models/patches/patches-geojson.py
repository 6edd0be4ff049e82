#!/usr/bin/env python3
"""patches-geojson.py - a patch file for the patch model from a GeoJSON map
(models/patches/patches.md, "Patches from a map").

    patches-geojson.py MAP.geojson [-o PATCHES.csv] [--population KEY]
                       [--name KEY] [--initial-infected KEY] [--force]

Each feature of MAP (a FeatureCollection, or one Feature) becomes a patch,
in the file's order: its population from the feature's property KEY
(default: the first of population, pop, POP, Population that it has), its
position the centroid of its geometry, and, with --initial-infected, its
initial infected from that property. Writes the CSV that [patches]
patch_file reads: id,population,latitude,longitude[,initial_infected],name
(name last, from --name or the first of name, NAME, Name, id that the
feature's properties have, else the feature's own id; the model ignores it; commas in it become semicolons), to PATCHES.csv
or the standard output. An existing PATCHES.csv is replaced only with
--force.

Centroids: a Point is itself; a Polygon's is its area centroid with its
holes taken out, computed in Lambert's cylindrical equal-area projection
(x = longitude, y = sin(latitude), the projection of EPSG:6933 on the
sphere; straight edges between the projected vertices) and taken back to
degrees; a MultiPolygon weights its parts by their area on the sphere (a
MultiPoint its points equally). A region bounded by meridians and
parallels is exact: tests/models/test-patches-geojson.sh checks the
centroids of such shapes against their closed forms. Geometries that
cross the antimeridian, lines and empty geometries are refused. Needs
only the Python standard library.
"""
import argparse
import json
import math
import os
import sys

POP_KEYS = ("population", "pop", "POP", "Population")
NAME_KEYS = ("name", "NAME", "Name", "id")


class MapError(Exception):
    """A bad map: the message names the feature."""


def ring_moments(ring, lon0):
    """Signed area and first moments of a closed ring in Lambert's
    cylindrical equal-area projection: x = longitude - lon0 (degrees),
    y = sin(latitude)."""
    pts = [(p[0] - lon0, math.sin(math.radians(p[1]))) for p in ring]
    if pts[0] != pts[-1]:
        pts.append(pts[0])
    a = cx = cy = 0.0
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        c = x0 * y1 - x1 * y0
        a += c
        cx += (x0 + x1) * c
        cy += (y0 + y1) * c
    return a / 2.0, cx / 6.0, cy / 6.0


def polygon_moments(rings, lon0):
    """Area and moments of a polygon: its first ring, less the others
    (holes), whatever their orientation."""
    total = [0.0, 0.0, 0.0]
    for i, ring in enumerate(rings):
        if len(ring) < 3:
            raise MapError("a ring of %d positions (at least 3)" % len(ring))
        a, mx, my = ring_moments(ring, lon0)
        if (a < 0) == (i == 0):  # the exterior adds, a hole takes away
            a, mx, my = -a, -mx, -my
        total[0] += a
        total[1] += mx
        total[2] += my
    return total


def positions(geom):
    """Every position of a geometry, for its extent."""
    t, c = geom.get("type"), geom.get("coordinates")
    if t == "Point":
        return [c]
    if t == "MultiPoint":
        return list(c)
    if t == "Polygon":
        return [p for ring in c for p in ring]
    if t == "MultiPolygon":
        return [p for poly in c for ring in poly for p in ring]
    raise MapError("geometry type %s: a patch is a Point, MultiPoint, "
                   "Polygon or MultiPolygon" % t)


def centroid(geom):
    """(latitude, longitude) of a geometry's centroid."""
    if not isinstance(geom, dict):
        raise MapError("no geometry")
    pts = positions(geom)
    if not pts:
        raise MapError("an empty geometry")
    for p in pts:
        if (not isinstance(p, (list, tuple)) or len(p) < 2 or
                not all(isinstance(v, (int, float)) for v in p[:2]) or
                not (-180 <= p[0] <= 180 and -90 <= p[1] <= 90)):
            raise MapError("position %r is not [longitude, latitude] in "
                           "degrees" % (p,))
    lons = [p[0] for p in pts]
    if max(lons) - min(lons) > 180:
        raise MapError("it spans %.1f degrees of longitude: it crosses the "
                       "antimeridian, which this converter does not handle"
                       % (max(lons) - min(lons)))
    t, c = geom["type"], geom["coordinates"]
    if t in ("Point", "MultiPoint"):
        return (sum(p[1] for p in pts) / len(pts),
                sum(p[0] for p in pts) / len(pts))
    lon0 = pts[0][0]
    polys = [c] if t == "Polygon" else c
    a = mx = my = 0.0
    for poly in polys:
        pa, px, py = polygon_moments(poly, lon0)
        a += pa
        mx += px
        my += py
    if not a > 0:
        raise MapError("its polygons have no area")
    return math.degrees(math.asin(max(-1.0, min(1.0, my / a)))), lon0 + mx / a


def prop(props, keys, what, required=True):
    for k in keys:
        if k in props and props[k] is not None:
            return k, props[k]
    if required:
        raise MapError("no %s property (%s); name it with --%s"
                       % (what, ", ".join(keys), what.replace(" ", "-")))
    return None, None


def count(v, key):
    """A non-negative whole number from a property's value."""
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            raise MapError("%s = %r is not a number" % (key, v))
    if (isinstance(v, bool) or not isinstance(v, (int, float)) or
            not math.isfinite(v) or v < 0 or v != int(v) or v >= 2**32):
        raise MapError("%s = %r is not a whole number from 0 to 2^32 - 1"
                       % (key, v))
    return int(v)


def features(doc):
    if doc.get("type") == "FeatureCollection":
        return doc.get("features") or []
    if doc.get("type") == "Feature":
        return [doc]
    raise MapError("the file is a %s, not a FeatureCollection or a Feature"
                   % doc.get("type"))


def rows(doc, args):
    out = []
    feats = features(doc)
    if not feats:
        raise MapError("the map has no features")
    for i, f in enumerate(feats):
        if not isinstance(f, dict) or f.get("type") != "Feature":
            raise MapError("feature %d is not a GeoJSON Feature" % i)
        props = f.get("properties") or {}
        if not isinstance(props, dict):
            raise MapError("feature %d: its properties are not an object"
                           % i)
        _, name = prop(props, (args.name,) if args.name else NAME_KEYS,
                       "name", required=bool(args.name))
        if name is None and not args.name:
            name = f.get("id")
        label = "feature %d%s" % (i, " (%s)" % name if name is not None
                                  else "")
        try:
            pk, pv = prop(props, (args.population,) if args.population
                          else POP_KEYS, "population")
            pop = count(pv, pk)
            lat, lon = centroid(f.get("geometry"))
            inf = None
            if args.initial_infected:
                ik, iv = prop(props, (args.initial_infected,),
                              "initial infected")
                inf = count(iv, ik)
                if inf > pop:
                    raise MapError("%s = %d is more than its population %d"
                                   % (ik, inf, pop))
        except MapError as e:
            raise MapError("%s: %s" % (label, e))
        text = "" if name is None else str(name)
        text = text.replace(",", ";").replace("\n", " ").replace("\r", " ")
        out.append((i, pop, lat, lon, inf, text))
    return out


def write(rows_, args, f):
    head = ["id", "population", "latitude", "longitude"]
    if args.initial_infected:
        head.append("initial_infected")
    f.write(",".join(head + ["name"]) + "\n")
    for i, pop, lat, lon, inf, name in rows_:
        cells = [str(i), str(pop), "%.9f" % lat, "%.9f" % lon]
        if args.initial_infected:
            cells.append(str(inf))
        f.write(",".join(cells + [name]) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="A patch file for weft's patch model from a GeoJSON "
        "map: one patch per feature, at its centroid.")
    ap.add_argument("map", help="a GeoJSON FeatureCollection or Feature")
    ap.add_argument("-o", "--output", help="the CSV to write (default: "
                    "the standard output)")
    ap.add_argument("--population", help="the population property "
                    "(default: the first of %s)" % ", ".join(POP_KEYS))
    ap.add_argument("--name", help="the name property (default: the "
                    "first of %s)" % ", ".join(NAME_KEYS))
    ap.add_argument("--initial-infected", help="a property with each "
                    "patch's initial infected (default: none; the INI's "
                    "initial_infected applies)")
    ap.add_argument("--force", action="store_true",
                    help="replace an existing output file")
    args = ap.parse_args(argv)
    try:
        with open(args.map, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        return "patches-geojson.py: %s: %s" % (args.map, e.strerror)
    except ValueError as e:
        return "patches-geojson.py: %s: not JSON: %s" % (args.map, e)
    try:
        if not isinstance(doc, dict):
            raise MapError("not a GeoJSON object")
        table = rows(doc, args)
    except MapError as e:
        return "patches-geojson.py: %s: %s" % (args.map, e)
    if not args.output:
        write(table, args, sys.stdout)
        return 0
    if os.path.lexists(args.output) and not args.force:
        return ("patches-geojson.py: %s exists; give --force to replace it"
                % args.output)
    tmp = args.output + ".tmp-%d" % os.getpid()
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            write(table, args, f)
        os.replace(tmp, args.output)
    except OSError as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        return "patches-geojson.py: %s: %s" % (args.output, e.strerror)
    print("patches-geojson.py: %d patches, %d agents in %s"
          % (len(table), sum(r[1] for r in table), args.output),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
