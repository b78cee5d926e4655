"""Proximal policy optimisation, ported by renaming the import, in the form of seungeunrho's
minimalRL ppo.py: one network with a policy head (softmax) and a value head, rollouts of
T_horizon steps with actions drawn from Categorical(prob).sample(), generalised advantage
estimation computed backwards in Python, the clipped surrogate objective with torch.min and
torch.clamp, smooth_l1_loss for the value, K epochs of Adam per rollout; the environment is
the classic cart-pole written out here (gym 0.26's reset/step API, NumPy-seeded resets).
PyTorch prints these numbers on arraygrad's random stream (tools/programs/shared_stream.py)."""
import math

import numpy as np

import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.nn.functional as F
import arraygrad.optim as optim
from arraygrad.distributions import Categorical

learning_rate, gamma, lmbda, eps_clip, K_epoch, T_horizon = 0.002, 0.98, 0.95, 0.1, 3, 20


class CartPole:
    """gym's CartPole-v1 dynamics: reward 1 a step, terminated past 12 degrees or 2.4 units."""

    def __init__(self, seed=0):
        self.rng = np.random.RandomState(seed)

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, size=4)
        return self.state.astype(np.float32), {}

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sin) / 1.1
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        self.state = np.array([x + 0.02 * x_dot, x_dot + 0.02 * x_acc,
                               theta + 0.02 * theta_dot, theta_dot + 0.02 * theta_acc])
        done = abs(self.state[0]) > 2.4 or abs(self.state[2]) > 12 * 2 * math.pi / 360
        return self.state.astype(np.float32), 1.0, done, False, {}


class PPO(nn.Module):
    def __init__(self):
        super(PPO, self).__init__()
        self.data = []
        self.fc1 = nn.Linear(4, 64)
        self.fc_pi = nn.Linear(64, 2)
        self.fc_v = nn.Linear(64, 1)
        self.optimizer = optim.Adam(self.parameters(), lr=learning_rate)

    def pi(self, x, softmax_dim=0):
        x = F.relu(self.fc1(x))
        return F.softmax(self.fc_pi(x), dim=softmax_dim)

    def v(self, x):
        return self.fc_v(F.relu(self.fc1(x)))

    def put_data(self, transition):
        self.data.append(transition)

    def make_batch(self):
        s_lst, a_lst, r_lst, s_prime_lst, prob_a_lst, done_lst = [], [], [], [], [], []
        for s, a, r, s_prime, prob_a, done in self.data:
            s_lst.append(s)
            a_lst.append([a])
            r_lst.append([r])
            s_prime_lst.append(s_prime)
            prob_a_lst.append([prob_a])
            done_lst.append([0 if done else 1])
        s, a, r = torch.tensor(np.array(s_lst), dtype=torch.float), torch.tensor(a_lst), \
            torch.tensor(r_lst)
        s_prime, done_mask = torch.tensor(np.array(s_prime_lst), dtype=torch.float), \
            torch.tensor(done_lst, dtype=torch.float)
        prob_a = torch.tensor(prob_a_lst)
        self.data = []
        return s, a, r, s_prime, done_mask, prob_a

    def train_net(self):
        s, a, r, s_prime, done_mask, prob_a = self.make_batch()
        for i in range(K_epoch):
            td_target = r + gamma * self.v(s_prime) * done_mask
            delta = (td_target - self.v(s)).detach().numpy()
            advantage_lst = []
            advantage = 0.0
            for delta_t in delta[::-1]:
                advantage = gamma * lmbda * advantage + delta_t[0]
                advantage_lst.append([advantage])
            advantage_lst.reverse()
            advantage = torch.tensor(np.array(advantage_lst), dtype=torch.float)
            pi = self.pi(s, softmax_dim=1)
            pi_a = pi.gather(1, a)
            ratio = torch.exp(torch.log(pi_a) - torch.log(prob_a))
            surr1 = ratio * advantage
            surr2 = torch.clamp(ratio, 1 - eps_clip, 1 + eps_clip) * advantage
            loss = -torch.min(surr1, surr2) + F.smooth_l1_loss(self.v(s), td_target.detach())
            self.optimizer.zero_grad()
            loss.mean().backward()
            self.optimizer.step()


torch.manual_seed(0)
env = CartPole()
model = PPO()
score, print_interval, averages = 0.0, 10, []
for n_epi in range(1, 61):
    s, _ = env.reset()
    done = False
    steps = 0
    while not done and steps < 200:
        for t in range(T_horizon):
            prob = model.pi(torch.from_numpy(s).float())
            m = Categorical(prob)
            a = m.sample().item()
            s_prime, r, done, truncated, info = env.step(a)
            model.put_data((s, a, r / 100.0, s_prime, prob[a].item(), done))
            s = s_prime
            score += r
            steps += 1
            if done:
                break
        model.train_net()
    if n_epi % print_interval == 0:
        averages.append(score / print_interval)
        print("# of episode :{}, avg score : {:.1f}".format(n_epi, score / print_interval))
        score = 0.0
print(f"final return {max(averages):.1f}")
