"""weft.render: frames drawn with numpy alone. Classic control against
Gymnasium's own rgb_array frames of the same states where pygame is
installed (otherwise: sizes, dtypes and known pixels of the scenes);
MinAtar against the palette seaborn gives MinAtar's display."""
import math
import os

import numpy as np
import pytest

from weft import render as R

SIZES = {"CartPole-v1": (400, 600), "Acrobot-v1": (500, 500),
         "MountainCar-v0": (400, 600), "MountainCarContinuous-v0": (400, 600),
         "Pendulum-v1": (500, 500)}
STATE_LEN = {"CartPole-v1": 4, "Acrobot-v1": 4, "MountainCar-v0": 2,
             "MountainCarContinuous-v0": 2, "Pendulum-v1": 2}

WHITE, BLACK = (255, 255, 255), (0, 0, 0)
POLE, AXLE = (202, 152, 101), (129, 132, 203)
LINK, JOINT = (0, 204, 204), (204, 204, 0)
ROD, WHEEL = (204, 77, 77), (128, 128, 128)


def px(img, row, col):
    return tuple(int(v) for v in img[row, col])


# ---- classic control: sizes and known pixels (no pygame needed) -------------

@pytest.mark.parametrize("env_id", sorted(SIZES))
def test_shape_dtype(env_id):
    img = R.frame(env_id, np.zeros(STATE_LEN[env_id]), None)
    assert img.dtype == np.uint8
    assert img.shape == SIZES[env_id] + (3,)
    assert img.flags.c_contiguous
    assert px(img, 0, 0) == WHITE


def test_cartpole_pixels():
    img = R.frame("CartPole-v1", np.zeros(4), None)
    # rows are 399 - y of Gymnasium's drawing (y up, flipped at the end)
    assert px(img, 399 - 94, 280) == BLACK          # the cart
    assert px(img, 399 - 200, 300) == POLE          # the pole, upright
    assert px(img, 399 - 107, 300) == AXLE          # the axle
    assert px(img, 399 - 100, 10) == BLACK          # the track
    assert px(img, 399 - 200, 400) == WHITE
    # theta = pi/2: the pole lies to the right of the axle; x moves the
    # cart by 125 pixels per unit
    img = R.frame("CartPole-v1", np.array([0.8, 0, math.pi / 2, 0]), None)
    assert px(img, 399 - 107, 400 + 100) == POLE
    assert px(img, 399 - 200, 400) == WHITE
    assert px(img, 399 - 94, 400 - 20) == BLACK


def test_cartpole_off_screen():
    img = R.frame("CartPole-v1", np.array([10.0, 0, 0.1, 0]), None)
    assert img.shape == (400, 600, 3)
    assert (img[:, :, 0] == 0).sum() == 600         # only the track


def test_acrobot_pixels():
    img = R.frame("Acrobot-v1", np.zeros(4), None)   # hanging down
    assert px(img, 499 - 200, 250) == LINK
    assert px(img, 499 - 30, 250) == LINK           # the second link
    assert px(img, 499 - 250, 250) == JOINT         # the pivot
    assert px(img, 499 - 363, 10) == BLACK          # the line at y = 1
    assert px(img, 499 - 300, 250) == WHITE
    img = R.frame("Acrobot-v1", np.array([math.pi, 0, 0, 0]), None)
    assert px(img, 499 - 300, 250) == LINK          # upright


@pytest.mark.parametrize("env_id,goal", [("MountainCar-v0", 0.5),
                                         ("MountainCarContinuous-v0", 0.45)])
def test_mountain_car_pixels(env_id, goal):
    img = R.frame(env_id, np.array([-0.5, 0.0]), None)
    scale = 600 / (0.6 - -1.2)    # Gymnasium's, a little over 600 / 1.8
    assert px(img, 399 - 55, 233) == BLACK          # the car
    assert px(img, 399 - 44, 243) == WHEEL          # its front wheel
    flagx = int((goal - -1.2) * scale)
    flagy = int((math.sin(3 * goal) * 0.45 + 0.55) * scale)
    assert px(img, 399 - (flagy + 20), flagx) == BLACK      # the flagpole
    assert px(img, 399 - (flagy + 45), flagx + 5) == JOINT  # the flag
    # the hill line passes through each column (darkest pixel of a
    # column near the curve)
    for x in (50, 300, 500):
        y = (math.sin(3 * (x / scale - 1.2)) * 0.45 + 0.55) * scale
        col = img[:, x, 0].astype(int)
        near = col[399 - int(y) - 2:399 - int(y) + 3]
        assert near.min() < 128


def test_pendulum_pixels():
    img = R.frame("Pendulum-v1", np.zeros(2), None)  # upright
    assert px(img, 499 - 350, 250) == ROD
    assert px(img, 499 - 250, 250) == BLACK         # the axle
    assert px(img, 499 - 150, 250) == WHITE
    img = R.frame("Pendulum-v1", np.array([math.pi / 2, 0.0]), None)
    assert px(img, 499 - 250, 150) == ROD           # to the left
    assert px(img, 499 - 350, 250) == WHITE


def test_state_from_obs():
    th = 0.7
    a = R.frame("Pendulum-v1", np.array([th, 1.0]), None)
    b = R.frame("Pendulum-v1", None,
                np.array([math.cos(th), math.sin(th), 1.0], np.float32))
    assert np.array_equal(a, b)
    s = np.array([0.4, -1.1, 0.0, 0.0])
    obs = np.array([math.cos(s[0]), math.sin(s[0]), math.cos(s[1]),
                    math.sin(s[1]), 0.0, 0.0])
    assert np.array_equal(R.frame("Acrobot-v1", s, None),
                          R.frame("Acrobot-v1", None, obs))
    s = np.array([0.5, 0.0, -0.1, 0.0], np.float32)
    assert np.array_equal(R.frame("CartPole-v1", s, None),
                          R.frame("CartPole-v1", None, s))


def test_frames_batch():
    states = np.array([[0, 0, 0, 0], [1, 0, 0.2, 0], [-1, 0, -0.2, 0]],
                      np.float32)
    out = R.frames("CartPole-v1", states, states)
    assert isinstance(out, tuple) and len(out) == 3
    for s, f in zip(states, out):
        assert np.array_equal(f, R.frame("CartPole-v1", s, None))
    assert not np.array_equal(out[0], out[1])
    with pytest.raises(ValueError, match="3 states but 2 observations"):
        R.frames("CartPole-v1", states, states[:2])


def test_unknown_id():
    with pytest.raises(ValueError) as e:
        R.frame("LunarLander-v3", np.zeros(8), None)
    msg = str(e.value)
    assert "'LunarLander-v3'" in msg
    for env_id in list(SIZES) + ["MinAtar/*"]:
        assert env_id in msg
    assert R.supported_ids() == tuple(SIZES) + ("MinAtar/*",)


def test_bad_state():
    with pytest.raises(ValueError, match="CartPole-v1's state has 4 values"):
        R.frame("CartPole-v1", np.zeros(2), None)
    with pytest.raises(ValueError, match="needs a state or an observation"):
        R.frame("Pendulum-v1", None, None)
    with pytest.raises(ValueError, match="Acrobot-v1's state is not finite"):
        R.frame("Acrobot-v1", np.array([0.0, np.nan, 0, 0]), None)
    # far off the canvas: drawn as far as it shows
    img = R.frame("CartPole-v1", np.array([1e12, 0, 0.3, 0]), None)
    assert (img[:, :, 0] == 0).sum() == 600


# ---- classic control against Gymnasium's frames (pygame) --------------------

FIXED = {
    "CartPole-v1": [[0, 0, 0, 0], [1.0, 0, 0.2, 0], [-2.3, 0, -0.3, 0],
                    [2.0, 0, 1.5, 0], [0.3, 0, math.pi / 2, 0]],
    "Acrobot-v1": [[0, 0, 0, 0], [0.5, -1.0, 0, 0], [math.pi, 0.3, 0, 0],
                   [math.pi / 2, math.pi / 2, 0, 0]],
    "MountainCar-v0": [[-0.5, 0], [-1.2, 0], [0.5, 0], [0.6, 0]],
    "MountainCarContinuous-v0": [[-0.5, 0], [0.45, 0], [-1.1, 0]],
    "Pendulum-v1": [[0, 0], [math.pi, 0], [1.0, 0], [math.pi / 2, 0]],
}
RANDOM = {"CartPole-v1": ([-2.4, 0, -math.pi, 0], [2.4, 0, math.pi, 0]),
          "Acrobot-v1": ([-math.pi] * 2 + [0, 0], [math.pi] * 2 + [0, 0]),
          "MountainCar-v0": ([-1.2, 0], [0.6, 0]),
          "MountainCarContinuous-v0": ([-1.2, 0], [0.6, 0]),
          "Pendulum-v1": ([-math.pi, 0], [math.pi, 0])}

NEAR = 48             # per channel, of 255: an edge pixel blended a little
#                       differently
FRAME_EQUAL = 0.99    # of a frame's pixels exactly equal (measured 99.57 %)
FRAME_NEAR = 0.995    # within NEAR (measured at least 99.97 %)
DRAWN_NEAR = 0.95     # of the pixels drawn in either frame (measured 97.4 %)
# each scene colour's pixels (exactly that colour) in one frame and not
# the other, over their number in Gymnasium's (measured at most 5.6 %: the
# shapes' fill is Gymnasium's, pixel for pixel; the edges differ)
SAME_COLOUR = 0.10
COLOURS = {"CartPole-v1": [BLACK, POLE, AXLE],
           "Acrobot-v1": [BLACK, LINK, JOINT],
           "MountainCar-v0": [BLACK, WHEEL, JOINT],
           "MountainCarContinuous-v0": [BLACK, WHEEL, JOINT],
           "Pendulum-v1": [ROD, BLACK]}


@pytest.fixture(scope="module")
def gym_frames():
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    from conftest import need
    gym = need("gymnasium", "the reference frames are Gymnasium's")
    pytest.importorskip(
        "pygame", reason="pygame is not installed (Gymnasium draws its "
        "classic-control frames with it: pip install pygame)")

    def make(env_id, state):
        env = gym.make(env_id, render_mode="rgb_array")
        try:
            env.reset(seed=0)
            env.unwrapped.state = np.array(state, dtype=np.float64)
            return env.render()
        finally:
            env.close()
    return make


def agreement(ref, img):
    d = np.abs(ref.astype(np.int16) - img.astype(np.int16)).max(axis=2)
    drawn = (ref != 255).any(axis=2) | (img != 255).any(axis=2)
    return ((d == 0).mean(), (d <= NEAR).mean(),
            (d <= NEAR)[drawn].mean())


@pytest.mark.parametrize("env_id", sorted(SIZES))
def test_against_gymnasium(gym_frames, env_id):
    rng = np.random.default_rng(2026)
    lo, hi = RANDOM[env_id]
    states = [np.array(s, float) for s in FIXED[env_id]] + \
        [rng.uniform(lo, hi) for _ in range(8)]
    for s in states:
        ref = gym_frames(env_id, s)
        img = R.frame(env_id, s, None)
        assert img.shape == ref.shape and img.dtype == ref.dtype
        equal, near, drawn = agreement(ref, img)
        where = "%s state %s: %.4f equal, %.4f within %d, %.4f of the " \
            "drawn pixels" % (env_id, s.tolist(), equal, near, NEAR, drawn)
        assert equal >= FRAME_EQUAL, where
        assert near >= FRAME_NEAR, where
        assert drawn >= DRAWN_NEAR, where
        for c in COLOURS[env_id]:
            theirs, ours = (ref == c).all(axis=2), (img == c).all(axis=2)
            off = (theirs ^ ours).sum() / max(theirs.sum(), 1)
            assert off <= SAME_COLOUR, "%s: %d pixels of %s, %d here, " \
                "%d in one only" % (where, theirs.sum(), c, ours.sum(),
                                    (theirs ^ ours).sum())


# ---- MinAtar ----------------------------------------------------------------

# seaborn 0.13.2's color_palette("cubehelix", C), as the bytes matplotlib
# 3.11 draws (int(255 v)): recorded from seaborn and from an imshow of
# MinAtar's display code, not from weft.render's formula
SEABORN_4 = [[21, 60, 77], [83, 121, 46], [207, 126, 146], [193, 202, 243]]
SEABORN_10 = [[25, 18, 43], [23, 52, 75], [23, 91, 72], [60, 117, 50],
              [126, 122, 53], [187, 121, 102], [212, 133, 175],
              [202, 169, 230], [193, 210, 243], [213, 240, 238]]


def test_minatar_palette():
    p = R.minatar_palette(4)
    assert p.dtype == np.uint8 and p.shape == (5, 3)
    assert p[0].tolist() == [0, 0, 0]
    assert p[1:].tolist() == SEABORN_4
    assert R.minatar_palette(10)[1:].tolist() == SEABORN_10
    with pytest.raises(ValueError):
        R.minatar_palette(0)


@pytest.mark.parametrize("dtype", [np.uint8, np.bool_, np.float32])
def test_minatar_frame(dtype):
    obs = np.zeros((10, 10, 4), dtype)
    obs[0, 0, 0] = 1            # channel 0 alone
    obs[9, 2, 1] = 1            # channels 1 and 3: the highest shows
    obs[9, 2, 3] = 1
    obs[4, 7, 2] = 1
    img = R.frame("MinAtar/Breakout-v1", None, obs)
    cell = R.MINATAR_CELL
    assert img.dtype == np.uint8 and img.shape == (10 * cell, 10 * cell, 3)
    pal = R.minatar_palette(4)

    def block(r, c):
        return img[r * cell:(r + 1) * cell, c * cell:(c + 1) * cell]

    assert (block(0, 0) == pal[1]).all()
    assert (block(9, 2) == pal[4]).all()
    assert (block(4, 7) == pal[3]).all()
    assert (block(5, 5) == 0).all()
    assert (img != 0).any(axis=2).sum() == 3 * cell * cell


def test_minatar_any_game_and_batch():
    obs = np.zeros((2, 10, 10, 6), np.uint8)
    obs[1, 3, 3, 5] = 1
    out = R.frames("MinAtar/SpaceInvaders-v1", None, obs)
    assert len(out) == 2 and (out[0] == 0).all()
    c = R.MINATAR_CELL
    assert (out[1][3 * c, 3 * c] == R.minatar_palette(6)[6]).all()
    with pytest.raises(ValueError, match="rows, columns, channels"):
        R.frame("MinAtar/Breakout-v1", None, np.zeros((10, 10), np.uint8))
    with pytest.raises(ValueError, match="obs is None"):
        R.frame("MinAtar/Breakout-v1", np.zeros(3), None)
