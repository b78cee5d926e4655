"""A stand-in for gym's CartPole-v1 (not gym): the classic cart-pole of Barto, Sutton and
Anderson with gym's constants, equations and episode limit, in pure Python and NumPy.

gym is not installed here (and it renders with pygame). ``tools/programs/compare.py`` puts
this package first on ``PYTHONPATH`` for the recipes that name it. The API is the one the
program was written against: gym 0.26's (``reset() -> (obs, info)``, ``step() -> (obs,
reward, terminated, truncated, info)``) by default, gym 0.21's (``reset() -> obs``,
``step() -> (obs, reward, done, info)``) when ``GYM_STANDIN_API=0.21``. Resets draw from a
NumPy generator seeded with 0 unless ``reset(seed=)`` or ``seed()`` says otherwise, so both
frameworks see the same episodes.
"""

from __future__ import annotations

import math
import os

import numpy as np

from . import spaces

__version__ = os.environ.get("GYM_STANDIN_API", "0.26") + ".0+standin"
__all__ = ["make", "spaces", "Env"]
_LEGACY = __version__.startswith("0.21")


class Env:
    """The part of ``gym.Env`` the programs use."""

    metadata: dict = {"render_modes": []}
    observation_space: spaces.Box
    action_space: spaces.Discrete

    @property
    def unwrapped(self) -> "Env":
        return self

    def render(self, *args, **kwargs):
        return None

    def close(self) -> None:
        return None


class CartPoleEnv(Env):
    """CartPole-v1: push the cart left (0) or right (1); reward 1 a step; the episode ends
    when the pole leans over 12 degrees or the cart leaves +-2.4, or after 500 steps."""

    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    theta_threshold_radians = 12 * 2 * math.pi / 360
    x_threshold = 2.4
    max_episode_steps = 500

    def __init__(self, render_mode=None) -> None:
        self.total_mass = self.masspole + self.masscart
        self.polemass_length = self.masspole * self.length
        high = np.array([self.x_threshold * 2, np.finfo(np.float32).max,
                         self.theta_threshold_radians * 2, np.finfo(np.float32).max],
                        dtype=np.float32)
        self.action_space = spaces.Discrete(2)
        self.observation_space = spaces.Box(-high, high, dtype=np.float32)
        self.np_random = np.random.RandomState(0)
        self.state = None
        self.steps = 0
        self._max_episode_steps = self.max_episode_steps

    def seed(self, seed=None):
        self.np_random = np.random.RandomState(seed)
        return [seed]

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.seed(seed)
        self.state = self.np_random.uniform(low=-0.05, high=0.05, size=(4,))
        self.steps = 0
        obs = np.array(self.state, dtype=np.float32)
        return obs if _LEGACY else (obs, {})

    def step(self, action):
        action = int(action)
        assert action in (0, 1), f"{action!r} invalid"
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        costheta, sintheta = math.cos(theta), math.sin(theta)
        temp = (force + self.polemass_length * theta_dot ** 2 * sintheta) / self.total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * costheta ** 2 / self.total_mass))
        xacc = temp - self.polemass_length * thetaacc * costheta / self.total_mass
        x = x + self.tau * x_dot
        x_dot = x_dot + self.tau * xacc
        theta = theta + self.tau * theta_dot
        theta_dot = theta_dot + self.tau * thetaacc
        self.state = (x, x_dot, theta, theta_dot)
        self.steps += 1
        terminated = bool(x < -self.x_threshold or x > self.x_threshold
                          or theta < -self.theta_threshold_radians
                          or theta > self.theta_threshold_radians)
        truncated = self.steps >= self.max_episode_steps and not terminated
        obs = np.array(self.state, dtype=np.float32)
        if _LEGACY:
            return obs, 1.0, terminated or truncated, {}
        return obs, 1.0, terminated, truncated, {}


_ENVS = {"CartPole-v1": CartPoleEnv, "CartPole-v0": CartPoleEnv}


def make(env_id: str, **kwargs) -> Env:
    """The stand-in's environment ``env_id`` (CartPole only)."""
    if env_id not in _ENVS:
        raise KeyError(f"the gym stand-in has no environment {env_id!r} (it has {sorted(_ENVS)})")
    env = _ENVS[env_id](render_mode=kwargs.get("render_mode"))
    if env_id == "CartPole-v0":
        env.max_episode_steps = env._max_episode_steps = 200
    return env
