"""The simplest policy gradient, ported by renaming the import, in the form of OpenAI Spinning
Up's pg_math/1_simple_pg.py: an MLP policy giving Categorical(logits=...) action
distributions, actions drawn with .sample(), the loss -(log_prob(act) * weights).mean() with
each step weighted by its episode's return (REINFORCE, no baseline), Adam; the environment is
the classic cart-pole, written out here with gym's constants (and NumPy-seeded resets).
PyTorch prints these numbers on arraygrad's random stream (tools/programs/shared_stream.py)."""
import math

import numpy as np

import arraygrad as torch
import arraygrad.nn as nn
from arraygrad.distributions.categorical import Categorical
from arraygrad.optim import Adam


class CartPole:
    """gym's CartPole-v0 dynamics: reward 1 a step, done past 12 degrees, 2.4 units or 200 steps."""

    def __init__(self, seed=0):
        self.rng = np.random.RandomState(seed)

    def reset(self):
        self.state, self.steps = self.rng.uniform(-0.05, 0.05, size=4), 0
        return self.state.astype(np.float32)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sin) / 1.1
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        self.state = np.array([x + 0.02 * x_dot, x_dot + 0.02 * x_acc,
                               theta + 0.02 * theta_dot, theta_dot + 0.02 * theta_acc])
        self.steps += 1
        done = abs(self.state[0]) > 2.4 or abs(self.state[2]) > 12 * 2 * math.pi / 360 \
            or self.steps >= 200
        return self.state.astype(np.float32), 1.0, done, {}


def mlp(sizes, activation=nn.Tanh, output_activation=nn.Identity):
    layers = []
    for j in range(len(sizes) - 1):
        act = activation if j < len(sizes) - 2 else output_activation
        layers += [nn.Linear(sizes[j], sizes[j + 1]), act()]
    return nn.Sequential(*layers)


def train(hidden_sizes=[32], lr=1e-2, epochs=8, batch_size=1000):
    torch.manual_seed(0)
    env = CartPole()
    obs_dim, n_acts = 4, 2
    logits_net = mlp(sizes=[obs_dim] + hidden_sizes + [n_acts])

    def get_policy(obs):
        return Categorical(logits=logits_net(obs))

    def get_action(obs):
        return get_policy(obs).sample().item()

    def compute_loss(obs, act, weights):
        logp = get_policy(obs).log_prob(act)
        return -(logp * weights).mean()

    optimizer = Adam(logits_net.parameters(), lr=lr)

    def train_one_epoch():
        batch_obs, batch_acts, batch_weights, batch_rets, batch_lens = [], [], [], [], []
        obs, done, ep_rews = env.reset(), False, []
        while True:
            batch_obs.append(obs.copy())
            act = get_action(torch.as_tensor(obs, dtype=torch.float32))
            obs, rew, done, _ = env.step(act)
            batch_acts.append(act)
            ep_rews.append(rew)
            if done:
                ep_ret, ep_len = sum(ep_rews), len(ep_rews)
                batch_rets.append(ep_ret)
                batch_lens.append(ep_len)
                batch_weights += [ep_ret] * ep_len
                obs, done, ep_rews = env.reset(), False, []
                if len(batch_obs) > batch_size:
                    break
        optimizer.zero_grad()
        batch_loss = compute_loss(obs=torch.as_tensor(np.array(batch_obs), dtype=torch.float32),
                                  act=torch.as_tensor(batch_acts, dtype=torch.int32),
                                  weights=torch.as_tensor(batch_weights, dtype=torch.float32))
        batch_loss.backward()
        optimizer.step()
        return batch_loss, batch_rets, batch_lens

    for i in range(epochs):
        batch_loss, batch_rets, batch_lens = train_one_epoch()
        print("epoch: %3d \t loss: %.6f \t return: %.3f \t ep_len: %.3f" %
              (i, batch_loss, np.mean(batch_rets), np.mean(batch_lens)))
    return np.mean(batch_rets)


final_return = train()
print(f"final return {final_return:.3f}")
