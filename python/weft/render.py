"""weft.render - an rgb frame of one environment, drawn with numpy only.

``frame(env_id, state, obs)`` draws one environment of a batch as an rgb
image (uint8, shape (H, W, 3)); ``frames`` draws a batch. No pygame, no
matplotlib: the vector environments' ``render()`` calls these, and weft
depends on numpy alone.

Classic control (CartPole-v1, Acrobot-v1, MountainCar-v0,
MountainCarContinuous-v0, Pendulum-v1)
    The scene of Gymnasium's ``render_mode="rgb_array"`` frame: the same
    image size, geometry and colours, taken from
    ``gymnasium/envs/classic_control/*.py`` ``render()``. The shapes are
    filled as Gymnasium's pygame primitives fill them (a polygon's corners
    cut to whole pixels and its rows filled by the same scan-line rule, a
    circle by the same midpoint rows), so that the filled pixels are
    those of Gymnasium's frame. The anti-aliased edges around the shapes
    and Mountain Car's hill line are drawn by a simpler rule than
    pygame's (Wu's lines, a circle's pixels by their distance to it), so
    that edge pixels differ a little. Measured on 40 random states of
    each id against Gymnasium 1.4 with pygame 2.6: at least 99.5 % of a
    frame's pixels equal, at least 99.9 % within 48 levels (of 255, per
    channel), and of the pixels drawn in either frame at least 97 %
    within 48 levels. Left out: Pendulum's torque arrow (an image of the
    last action, which the state does not hold; Gymnasium draws none
    right after a reset either). State layouts are
    Gymnasium's: CartPole [x, x_dot, theta, theta_dot], Acrobot [theta1,
    theta2, dtheta1, dtheta2], Mountain Car [position, velocity],
    Pendulum [th, thdot]. With ``state=None`` the state is taken from the
    observation where it can be (CartPole and Mountain Car observe their
    state; Acrobot's and Pendulum's angles are the atan2 of the observed
    sine and cosine).

MinAtar/* (any MinAtar game)
    As MinAtar's ``Environment.display_state`` and gymnax's MinAtar
    visualiser draw the observation (u8 or bool [10, 10, C], [row, column,
    channel]): each cell takes the colour of its highest set channel, from
    seaborn's ``color_palette("cubehelix", C)``, black where no channel is
    set; each cell is ``MINATAR_CELL`` pixels square. The palette is
    computed here (``minatar_palette``), without seaborn: seaborn samples
    matplotlib's "cubehelix" colormap (Green's cube helix, gamma 1,
    s 0.5, r -1.5, h 1, as a 256-entry table) at the C points
    ``linspace(0, 1, C + 2)[1:-1]``, and matplotlib turns a colour into
    bytes as ``int(255 * v)``; the values here equal seaborn 0.13's and
    the pixels matplotlib 3.11 shows. ``state`` is not used.
"""

import functools
import math

import numpy as np

__all__ = ["frame", "frames", "minatar_palette", "supported_ids",
           "render_fps", "MINATAR_CELL"]

#: pixels per MinAtar cell (a 10 x 10 board is 160 x 160 pixels)
MINATAR_CELL = 16

_BLACK = (0, 0, 0)

# ---- a small rasteriser -----------------------------------------------------
#
# The canvas is an (H, W, 3) uint8 array indexed [y, x] in pygame's surface
# coordinates (y grows downwards); Gymnasium draws its scenes with y
# upwards and flips the surface at the end, and so do the scenes here.
# Points are cut to whole pixels as pygame's gfxdraw does (int(), towards
# zero); everything is clipped to the canvas.


def _canvas(width: int, height: int) -> np.ndarray:
    """A white (height, width, 3) uint8 canvas."""
    return np.full((height, width, 3), 255, dtype=np.uint8)


def _hline(img: np.ndarray, x1: int, x2: int, y: int, color) -> None:
    """Pixels x1..x2 (both included, either order) of row y."""
    h, w = img.shape[:2]
    if x1 > x2:
        x1, x2 = x2, x1
    if 0 <= y < h and x2 >= 0 and x1 < w:
        img[y, max(x1, 0):min(x2, w - 1) + 1] = color


def _vline(img: np.ndarray, x: int, y1: int, y2: int, color) -> None:
    """Pixels y1..y2 (both included, either order) of column x."""
    h, w = img.shape[:2]
    if y1 > y2:
        y1, y2 = y2, y1
    if 0 <= x < w and y2 >= 0 and y1 < h:
        img[max(y1, 0):min(y2, h - 1) + 1, x] = color


def _fill_rows(img: np.ndarray, ys: np.ndarray, xa: np.ndarray,
               xb: np.ndarray, color) -> None:
    """Fill the spans xa[i]..xb[i] (included) of the rows ys[i]."""
    h, w = img.shape[:2]
    keep = (ys >= 0) & (ys < h) & (xb >= xa) & (xb >= 0) & (xa < w)
    ys, xa, xb = ys[keep], np.maximum(xa[keep], 0), \
        np.minimum(xb[keep], w - 1)
    if ys.size == 0:
        return
    cols = np.arange(w)
    inside = (cols[None, :] >= xa[:, None]) & (cols[None, :] <= xb[:, None])
    r, c = np.nonzero(inside)
    img[ys[r], c] = color


def _fill_polygon(img: np.ndarray, points, color,
                  outline: bool = True) -> None:
    """A filled polygon (any number of corners, convex or not), by scan
    lines: corners cut to whole pixels; on each row the edges that cross
    it (each edge holds its upper end and not its lower, but the lowest
    row takes the edges ending there) give x in 16.16 fixed point, and
    the spans between pairs of crossings are filled, ends rounded half up
    after one 1/65536 step inwards. These are the rows pygame's
    gfxdraw.filled_polygon fills. With outline (Gymnasium draws
    gfxdraw.aapolygon first), the edges are first drawn as anti-aliased
    lines, which the fill then covers inside."""
    # (corners a million pixels away are held there: off the canvas
    # either way, and 16.16 fixed point stays within int64)
    p = np.trunc(np.clip(np.asarray(points, dtype=np.float64), -2.0**20,
                         2.0**20)).astype(np.int64)
    if p.ndim != 2 or p.shape[0] < 3:
        return
    if outline:
        for i in range(len(p)):
            _aaline(img, p[i - 1], p[i], color, last=False)
    x, y = p[:, 0], p[:, 1]
    miny, maxy = int(y.min()), int(y.max())
    h = img.shape[0]
    lo, hi = max(miny, 0), min(maxy, h - 1)
    if lo > hi:
        return
    # edges (i - 1, i), each with its upper end (smaller y) first
    xp, yp = np.roll(x, 1), np.roll(y, 1)
    up = yp < y
    ex1, ey1 = np.where(up, xp, x), np.where(up, yp, y)
    ex2, ey2 = np.where(up, x, xp), np.where(up, y, yp)
    flat = ey1 == ey2
    ex1, ey1, ex2, ey2 = ex1[~flat], ey1[~flat], ex2[~flat], ey2[~flat]
    rows = np.arange(lo, hi + 1, dtype=np.int64)[:, None]
    crosses = ((rows >= ey1) & (rows < ey2)) | \
        ((rows == maxy) & (rows > ey1) & (rows <= ey2))
    # (65536 * (y - y1)) // (y2 - y1): both positive where it is used
    dy = np.maximum(ey2 - ey1, 1)
    fx = ((65536 * (rows - ey1)) // dy) * (ex2 - ex1) + 65536 * ex1
    big = np.iinfo(np.int64).max
    fx = np.sort(np.where(crosses, fx, big), axis=1)
    count = crosses.sum(axis=1)
    for k in range(0, fx.shape[1] - 1, 2):
        has = count >= k + 2
        a = fx[has, k] + 1
        b = fx[has, k + 1] - 1
        xa = (a >> 16) + ((a >> 15) & 1)
        xb = (b >> 16) + ((b >> 15) & 1)
        _fill_rows(img, rows[has, 0], xa, xb, color)


def _circle_halfwidths(r: int) -> dict:
    """{dy: half width} of a filled circle of radius r: the rows the
    midpoint circle algorithm fills (pygame's gfxdraw.filled_circle)."""
    half = {}

    def put(dy, w):
        for s in (dy, -dy):
            half[s] = max(half.get(s, -1), w)

    cx, cy = 0, r
    last_cx = last_cy = None
    df, d_e, d_se = 1 - r, 3, 5 - 2 * r
    while True:
        if cy != last_cy:
            put(cy, cx)
            last_cy = cy
        if cx != last_cx:
            if cx != cy:
                put(cx, cy)
            last_cx = cx
        if df < 0:
            df, d_e, d_se = df + d_e, d_e + 2, d_se + 2
        else:
            df, d_e, d_se = df + d_se, d_e + 2, d_se + 4
            cy -= 1
        cx += 1
        if cx > cy:
            return half


def _aacircle(img: np.ndarray, x: int, y: int, r: int, color) -> None:
    """An anti-aliased circle outline: each pixel takes the colour by
    1 - its centre's distance to the circle, blended over what is there
    (within a few levels of pygame's gfxdraw.aacircle)."""
    h, w = img.shape[:2]
    x0, x1 = max(x - r - 1, 0), min(x + r + 2, w)
    y0, y1 = max(y - r - 1, 0), min(y + r + 2, h)
    if x0 >= x1 or y0 >= y1:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1]
    wt = np.clip(1.0 - np.abs(np.hypot(xx - x, yy - y) - r), 0.0, 1.0)
    wt = wt[:, :, None]
    old = img[y0:y1, x0:x1].astype(np.float64)
    img[y0:y1, x0:x1] = np.rint(old * (1.0 - wt) + np.asarray(
        color, dtype=np.float64) * wt).astype(np.uint8)


def _fill_circle(img: np.ndarray, x: int, y: int, r: int, color,
                 outline: bool = True) -> None:
    """A filled circle of centre (x, y) and radius r (whole pixels), over
    its anti-aliased outline (as Gymnasium draws: gfxdraw.aacircle, then
    gfxdraw.filled_circle) unless outline is False."""
    if r < 0:
        return
    if outline:
        _aacircle(img, x, y, r, color)
    half = _circle_halfwidths(int(r))
    dys = np.array(sorted(half), dtype=np.int64)
    ws = np.array([half[d] for d in dys], dtype=np.int64)
    _fill_rows(img, y + dys, x - ws, x + ws, color)


def _aaline(img: np.ndarray, p0, p1, color, last: bool = True) -> None:
    """An anti-aliased one-pixel line from p0 to p1 (Xiaolin Wu's: at
    each whole step along the longer axis, the two pixels around the
    line share the colour by their distance to it, blended over what is
    there; pixel centres are at whole coordinates, as pygame's
    draw.aaline has them). last=False leaves out the step at p1 (for the
    joints of a polyline)."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    d = p1 - p0
    major = 0 if abs(d[0]) >= abs(d[1]) else 1
    if d[major] < 0:
        p0, p1, d = p1, p0, -d
        first, stop = int(round(p0[major])) + (0 if last else 1), \
            int(round(p1[major])) + 1
    else:
        first = int(round(p0[major]))
        stop = int(round(p1[major])) + (1 if last else 0)
    if d[major] == 0 or stop <= first:
        return
    steps = np.arange(first, stop, dtype=np.int64)
    minor = p0[1 - major] + (steps - p0[major]) * (d[1 - major] / d[major])
    base = np.floor(minor).astype(np.int64)
    frac = minor - base
    h, w = img.shape[:2]
    col = np.asarray(color, dtype=np.float64)
    for off, weight in ((0, 1.0 - frac), (1, frac)):
        xs, ys = (steps, base + off) if major == 0 else (base + off, steps)
        keep = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
        xs, ys, wt = xs[keep], ys[keep], weight[keep][:, None]
        old = img[ys, xs].astype(np.float64)
        img[ys, xs] = np.rint(old * (1.0 - wt) + col * wt).astype(np.uint8)


_EPS = 1e-6  # pygame.math.Vector2's epsilon


def _rotate(points, angle: float) -> np.ndarray:
    """points (N, 2) rotated by angle (radians, counterclockwise in a y-up
    frame), as pygame.math.Vector2.rotate_rad does: rotations within
    1e-6 of a multiple of 90 degrees are exact swaps (so that a corner
    exactly on a pixel boundary stays there)."""
    p = np.asarray(points, dtype=np.float64)
    a = math.fmod(float(angle), 2 * math.pi)
    if a < 0:
        a += 2 * math.pi
    if math.fmod(a + _EPS, math.pi / 2) < 2 * _EPS:
        q = int((a + _EPS) / (math.pi / 2)) % 4
        x, y = p[:, 0], p[:, 1]
        return np.stack([(x, -y, -x, y)[q], (y, x, -y, -x)[q]], axis=1)
    c, s = math.cos(a), math.sin(a)
    return np.stack([p[:, 0] * c - p[:, 1] * s,
                     p[:, 0] * s + p[:, 1] * c], axis=1)


# ---- the scenes -------------------------------------------------------------


def _cartpole(s: np.ndarray) -> np.ndarray:
    """CartPole-v1, 600 x 400 (gymnasium cartpole.py render())."""
    width, height = 600, 400
    x_threshold, length = 2.4, 0.5
    scale = width / (x_threshold * 2)
    polewidth, polelen = 10.0, scale * (2 * length)
    cartwidth, cartheight = 50.0, 30.0
    img = _canvas(width, height)
    axleoffset = cartheight / 4.0
    cartx = float(s[0]) * scale + width / 2.0
    carty = 100
    l, r, t, b = -cartwidth / 2, cartwidth / 2, cartheight / 2, \
        -cartheight / 2
    cart = np.array([(l, b), (l, t), (r, t), (r, b)]) + (cartx, carty)
    _fill_polygon(img, cart, _BLACK)
    l, r, t, b = -polewidth / 2, polewidth / 2, polelen - polewidth / 2, \
        -polewidth / 2
    pole = _rotate([(l, b), (l, t), (r, t), (r, b)], -float(s[2])) + \
        (cartx, carty + axleoffset)
    _fill_polygon(img, pole, (202, 152, 101))
    _fill_circle(img, int(cartx), int(carty + axleoffset),
                 int(polewidth / 2), (129, 132, 203))
    _hline(img, 0, width, carty, _BLACK)
    return img[::-1]


def _acrobot(s: np.ndarray) -> np.ndarray:
    """Acrobot-v1, 500 x 500 (gymnasium acrobot.py render())."""
    dim = 500
    l1 = l2 = 1.0
    bound = l1 + l2 + 0.2
    scale = dim / (bound * 2)
    offset = dim / 2
    img = _canvas(dim, dim)
    th1, th2 = float(s[0]), float(s[1])
    p1 = (l1 * math.sin(th1) * scale, -l1 * math.cos(th1) * scale)
    y = int(1 * scale + offset)
    _hline(img, int(-2.2 * scale + offset), int(2.2 * scale + offset), y,
           _BLACK)
    for (x, y), th, llen in zip(((0.0, 0.0), p1),
                                (th1 - math.pi / 2, th1 + th2 - math.pi / 2),
                                (l1 * scale, l2 * scale)):
        x, y = x + offset, y + offset
        l, r, t, b = 0, llen, 0.1 * scale, -0.1 * scale
        link = _rotate([(l, b), (l, t), (r, t), (r, b)], th) + (x, y)
        _fill_polygon(img, link, (0, 204, 204))
        _fill_circle(img, int(x), int(y), int(0.1 * scale), (204, 204, 0))
    return img[::-1]


def _height(xs):
    return np.sin(3 * xs) * 0.45 + 0.55


@functools.lru_cache(maxsize=1)
def _hill() -> np.ndarray:
    """Mountain Car's background, the hill line on white (the same in
    every frame: drawn once; callers copy it)."""
    width, height = 600, 400
    min_pos, max_pos = -1.2, 0.6
    scale = width / (max_pos - min_pos)
    img = _canvas(width, height)
    xs = np.linspace(min_pos, max_pos, 100)
    pts = np.stack([(xs - min_pos) * scale, _height(xs) * scale], axis=1)
    for i in range(len(pts) - 1):
        _aaline(img, pts[i], pts[i + 1], _BLACK, last=i == len(pts) - 2)
    img.flags.writeable = False
    return img


def _mountain_car(s: np.ndarray, goal: float) -> np.ndarray:
    """MountainCar-v0 (goal 0.5) and MountainCarContinuous-v0 (goal
    0.45), 600 x 400 (gymnasium mountain_car.py render())."""
    width, height = 600, 400
    min_pos, max_pos = -1.2, 0.6
    scale = width / (max_pos - min_pos)
    carwidth, carheight = 40, 20
    img = _hill().copy()
    pos = float(s[0])
    clearance = 10
    angle = math.cos(3 * pos)
    at = np.array([(pos - min_pos) * scale,
                   clearance + float(_height(pos)) * scale])
    l, r, t, b = -carwidth / 2, carwidth / 2, carheight, 0
    _fill_polygon(img, _rotate([(l, b), (l, t), (r, t), (r, b)], angle) + at,
                  _BLACK)
    for c in _rotate([(carwidth / 4, 0), (-carwidth / 4, 0)], angle) + at:
        _fill_circle(img, int(c[0]), int(c[1]), int(carheight / 2.5),
                     (128, 128, 128))
    flagx = int((goal - min_pos) * scale)
    flagy1 = int(float(_height(goal)) * scale)
    flagy2 = flagy1 + 50
    _vline(img, flagx, flagy1, flagy2, _BLACK)
    _fill_polygon(img, [(flagx, flagy2), (flagx, flagy2 - 10),
                        (flagx + 25, flagy2 - 5)], (204, 204, 0))
    return img[::-1]


def _pendulum(s: np.ndarray) -> np.ndarray:
    """Pendulum-v1, 500 x 500 (gymnasium pendulum.py render(), without
    the torque arrow)."""
    dim = 500
    bound = 2.2
    scale = dim / (bound * 2)
    offset = dim // 2
    img = _canvas(dim, dim)
    red = (204, 77, 77)
    rod_length, rod_width = 1 * scale, 0.2 * scale
    l, r, t, b = 0, rod_length, rod_width / 2, -rod_width / 2
    angle = float(s[0]) + math.pi / 2
    rod = _rotate([(l, b), (l, t), (r, t), (r, b)], angle) + offset
    _fill_polygon(img, rod, red)
    _fill_circle(img, offset, offset, int(rod_width / 2), red)
    end = _rotate([(rod_length, 0)], angle)[0]
    _fill_circle(img, int(end[0] + offset), int(end[1] + offset),
                 int(rod_width / 2), red)
    _fill_circle(img, offset, offset, int(0.05 * scale), _BLACK)
    return img[::-1]


# ---- MinAtar ----------------------------------------------------------------


def minatar_palette(n_channels: int) -> np.ndarray:
    """The colours of MinAtar's channels: seaborn's
    ``color_palette("cubehelix", n_channels)`` as bytes.

    Parameters
    ----------
    n_channels : int
        The number of channels C (at least 1).

    Returns
    -------
    numpy.ndarray
        uint8 of shape (C + 1, 3): row 0 black (no channel set), row k the
        colour of channel k - 1.

    Notes
    -----
    matplotlib's "cubehelix" colormap is a table of 256 entries, entry i
    Green's cube helix at x = i / 255 (gamma 1, start s = 0.5, rotations
    r = -1.5, hue h = 1)::

        a = h x (1 - x) / 2,  phi = 2 pi (s / 3 + r x)
        red   = x + a (-0.14861 cos phi + 1.78277 sin phi)
        green = x + a (-0.29227 cos phi - 0.90649 sin phi)
        blue  = x + a ( 1.97294 cos phi)

    each clipped to [0, 1]. seaborn takes the entries at the C points
    ``linspace(0, 1, C + 2)[1:-1]`` (entry ``int(256 p)``), and
    matplotlib draws a colour v as the byte ``int(255 v)``.
    """
    n = int(n_channels)
    if n < 1:
        raise ValueError("minatar_palette: n_channels must be at least 1, "
                         "got %r" % (n_channels,))
    at = np.linspace(0.0, 1.0, n + 2)[1:-1]
    x = np.minimum((at * 256).astype(np.int64), 255) / 255.0
    a = x * (1 - x) / 2
    phi = 2 * np.pi * (0.5 / 3 - 1.5 * x)
    c, s = np.cos(phi), np.sin(phi)
    rgb = np.stack([x + a * (-0.14861 * c + 1.78277 * s),
                    x + a * (-0.29227 * c - 0.90649 * s),
                    x + a * (1.97294 * c)], axis=1)
    rgb = (np.clip(rgb, 0.0, 1.0) * 255).astype(np.uint8)
    return np.concatenate([np.zeros((1, 3), np.uint8), rgb])


def _minatar(obs: np.ndarray) -> np.ndarray:
    o = np.asarray(obs)
    if o.ndim != 3 or o.shape[2] < 1:
        raise ValueError("MinAtar: obs must have shape (rows, columns, "
                         "channels), got %s" % (o.shape,))
    c = o.shape[2]
    # 1 + the highest set channel, 0 where none is (MinAtar's amax of
    # obs * (1..C))
    idx = np.max((o != 0) * np.arange(1, c + 1), axis=2)
    img = minatar_palette(c)[idx]
    return np.repeat(np.repeat(img, MINATAR_CELL, axis=0), MINATAR_CELL,
                     axis=1)


# ---- the ids ----------------------------------------------------------------


def _from_obs_angles(obs, n):
    """[theta_1..theta_n] from an observation that begins with n cosines
    and n sines interleaved per angle (Acrobot: cos1, sin1, cos2, sin2;
    Pendulum: cos, sin)."""
    o = np.asarray(obs, dtype=np.float64).reshape(-1)
    return [math.atan2(o[2 * i + 1], o[2 * i]) for i in range(n)]


def _acrobot_state(state, obs):
    if state is not None:
        return state
    o = np.asarray(obs, dtype=np.float64).reshape(-1)
    return np.array(_from_obs_angles(o, 2) + list(o[4:6]))


def _pendulum_state(state, obs):
    if state is not None:
        return state
    o = np.asarray(obs, dtype=np.float64).reshape(-1)
    return np.array(_from_obs_angles(o, 1) + [o[2]])


def _same(state, obs):
    return obs if state is None else state


# id: (state from (state, obs), state length, scene)
_CLASSIC = {
    "CartPole-v1": (_same, 4, _cartpole),
    "Acrobot-v1": (_acrobot_state, 4, _acrobot),
    "MountainCar-v0": (_same, 2, lambda s: _mountain_car(s, 0.5)),
    "MountainCarContinuous-v0": (_same, 2,
                                 lambda s: _mountain_car(s, 0.45)),
    "Pendulum-v1": (_pendulum_state, 2, _pendulum),
}


# Gymnasium's metadata["render_fps"] of the classic-control ids (what
# RecordVideo plays their frames at)
_FPS = {"CartPole-v1": 50, "Acrobot-v1": 15, "MountainCar-v0": 30,
        "MountainCarContinuous-v0": 30, "Pendulum-v1": 30}


def render_fps(env_id: str):
    """The frames per second Gymnasium's own environment of ``env_id``
    declares (``metadata["render_fps"]``), or None where it has none
    (MinAtar's ids)."""
    return _FPS.get(env_id)


def supported_ids() -> tuple:
    """The ids ``frame`` draws.

    Returns
    -------
    tuple of str
        The classic-control ids, then ``"MinAtar/*"`` (any id that begins
        with ``MinAtar/``).
    """
    return tuple(_CLASSIC) + ("MinAtar/*",)


def _unknown(env_id):
    return ValueError("weft.render: no renderer for the environment id %r; "
                      "supported: %s" % (env_id, ", ".join(supported_ids())))


def frame(env_id: str, state: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """One environment drawn as an rgb image.

    Parameters
    ----------
    env_id : str
        The environment's id: one of ``supported_ids()``.
    state : numpy.ndarray or None
        The environment's state, in Gymnasium's layout (see the module's
        documentation); None: taken from ``obs`` (classic control).
        Not used for MinAtar.
    obs : numpy.ndarray or None
        The environment's observation: what MinAtar's frame shows (shape
        (10, 10, C)); for classic control used only when state is None.

    Returns
    -------
    numpy.ndarray
        uint8 of shape (H, W, 3): 400 x 600 for CartPole and Mountain Car,
        500 x 500 for Acrobot and Pendulum, (10 x MINATAR_CELL) square for
        MinAtar.

    Raises
    ------
    ValueError
        An id with no renderer (the message names it and lists the ones
        there are), or a state or observation of the wrong size.
    """
    if not isinstance(env_id, str):
        raise _unknown(env_id)
    if env_id.startswith("MinAtar/"):
        if obs is None:
            raise ValueError("weft.render: %s is drawn from its "
                             "observation, and obs is None" % env_id)
        return _minatar(obs)
    entry = _CLASSIC.get(env_id)
    if entry is None:
        raise _unknown(env_id)
    pick, size, scene = entry
    if state is None and obs is None:
        raise ValueError("weft.render: %s needs a state or an observation, "
                         "and both are None" % env_id)
    s = np.asarray(pick(state, obs), dtype=np.float64).reshape(-1)
    if s.size < size:
        raise ValueError("weft.render: %s's state has %d values, got %d"
                         % (env_id, size, s.size))
    if not np.isfinite(s[:size]).all():
        raise ValueError("weft.render: %s's state is not finite: %s"
                         % (env_id, s[:size].tolist()))
    return np.ascontiguousarray(scene(s))


def frames(env_id: str, states, obs) -> tuple:
    """Each environment of a batch drawn as an rgb image.

    Parameters
    ----------
    env_id : str
        As for ``frame``.
    states : numpy.ndarray or None
        The states, one row per environment (shape (num_envs, ...)); None:
        none (each taken from its observation, or not needed).
    obs : numpy.ndarray or None
        The observations, one per environment (shape (num_envs, ...)).

    Returns
    -------
    tuple of numpy.ndarray
        ``frame(env_id, states[i], obs[i])`` for each environment i.

    Raises
    ------
    ValueError
        As ``frame``, or states and obs of different lengths.
    """
    if states is None and obs is None:
        raise ValueError("weft.render.frames: states and obs are both None")
    n = len(states) if states is not None else len(obs)
    if states is not None and obs is not None and len(obs) != n:
        raise ValueError("weft.render.frames: %d states but %d observations"
                         % (n, len(obs)))
    return tuple(frame(env_id,
                       None if states is None else states[i],
                       None if obs is None else obs[i]) for i in range(n))
