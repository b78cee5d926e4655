"""How to run each corpus program on a CPU in seconds, the same way on both frameworks.

A recipe names the program (``repo``: the corpus folder ``<owner>+<name>``; ``program``: its
path in the repository, a notebook by its converted ``<stem>_ipynb.py``), the sibling files it
imports (``files``, read from the repository's mirror), the synthetic data it reads
(``data``: a function writing files into the folder the program runs in), the stand-in
packages it needs (``standins``), the arguments that shorten it (``args``) and the seed given
to programs that do not seed themselves. ``edits`` are the only changes to the program's code:
each is one exact replacement with its reason (a CUDA-only line, a loop count no argument
controls, a download); everything else runs as published.

``compare`` says how the outputs are held against each other: ``exact`` (every printed number,
to ``rtol``; programs with no random draws, or whose draws all go through the shared stream),
or ``final`` (the last metric, within ``tolerance``, with ``learned`` true of both), for programs
whose randomness PyTorch draws in C++ where the shared stream cannot reach.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

__all__ = ["Edit", "Recipe", "RECIPES"]


@dataclass(frozen=True)
class Edit:
    """One exact replacement in a program file, and why it is needed."""
    path: str
    old: str
    new: str
    why: str


@dataclass(frozen=True)
class Recipe:
    """How to run one program (see the module docstring)."""
    name: str
    repo: str
    program: str
    what: str
    files: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    data: Callable[[Path], None] | None = None
    data_what: str = ""
    seed: int | None = None
    default_dtype: str | None = None  # "float64": torch.set_default_dtype before the program
    edits: tuple[Edit, ...] = ()
    standins: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)  # environment variables of both runs
    pythonpath: tuple[str, ...] = ()  # scratch folders put on PYTHONPATH (an installed package)
    cwd_in: str | None = None  # the folder (repository-relative) to run in; default: the program's
    shared_stream: bool = True
    compare: str = "exact"
    rtol: float = 1e-5
    atol: float = 1e-6
    ignore: str | None = None
    drift_after: str | None = None  # exact before the first line matching it, final after
    exact_first: int | None = None  # or: exact for the first so many numbers, final after
    final: str | None = None
    final_name: str = ""
    tolerance: float = 0.0
    learned: Callable[[float], bool] = field(default=lambda v: True)
    why: str = ""
    timeout: float = 600.0

    def layout(self, rel: str) -> str:
        """Where a repository file lies in the scratch folder (its repository path)."""
        return rel

    @property
    def cwd(self) -> str:
        """The folder the program runs in, relative to the scratch folder."""
        if self.cwd_in is not None:
            return self.cwd_in
        parent = str(Path(self.program).parent)
        return "" if parent == "." else parent

    def command(self) -> str:
        """The command line, as a user would type it in the program's folder."""
        args = " ".join(self.args)
        seed = "" if self.seed is None else f" (seed {self.seed})"
        dtype = "" if self.default_dtype is None else f" (default dtype {self.default_dtype})"
        return f"python {Path(self.program).name} {args}".rstrip() + seed + dtype


# -- synthetic data --------------------------------------------------------------------------

_SYLLABLES = ("ka", "ri", "mo", "la", "en", "so", "fi", "an", "el", "da", "ne", "ro", "vi",
              "ta", "mi", "lu", "jo", "sa", "be", "ya", "ch", "ar", "on", "is", "th", "em",
              "qu", "xa", "zo", "wi", "ge", "pe", "ko", "hu")  # every letter: 27 characters with '.'


def write_names(folder: Path, count: int = 2000) -> None:
    """``names.txt``: ``count`` made-up lower-case names, one a line (makemore's input); all
    26 letters occur, as the lectures' 27-character tables assume."""
    rng = random.Random(0)
    names = set()
    while len(names) < count:
        names.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 4))))
    (folder / "names.txt").write_text("\n".join(sorted(names, key=lambda _: rng.random())) + "\n")


_WORDS = ("the", "a", "king", "queen", "said", "to", "of", "and", "my", "lord", "shall",
          "not", "be", "thou", "art", "what", "is", "in", "that", "with", "his", "her",
          "good", "night", "come", "go", "love", "death", "sweet", "heart", "we", "you")


def write_text(folder: Path, chars: int = 20000, name: str = "input.txt") -> None:
    """A text file of made-up sentences (the char-level models' ``input.txt``)."""
    rng = random.Random(0)
    lines = []
    size = 0
    while size < chars:
        words = [rng.choice(_WORDS) for _ in range(rng.randint(3, 9))]
        line = " ".join(words).capitalize() + rng.choice(".,;!?")
        lines.append(line)
        size += len(line) + 1
    (folder / name).write_text("\n".join(lines) + "\n")


def write_cora(folder: Path, nodes: int = 1600, features: int = 64, classes: int = 7) -> None:
    """``cora.content`` (``id f1 .. fF label`` per node) and ``cora.cites`` (``id id`` per
    edge) in ``folder``, Cora's formats: a random graph whose edges mostly join nodes of one
    class and whose binary features lean towards their class's, so a graph network learns."""
    rng = random.Random(0)
    ids = rng.sample(range(10_000, 1_000_000), nodes)
    labels = [rng.randrange(classes) for _ in range(nodes)]
    favoured = [set(rng.sample(range(features), features // 4)) for _ in range(classes)]
    rows = []
    for node, label in zip(ids, labels):
        bits = [int(rng.random() < (0.3 if f in favoured[label] else 0.04))
                for f in range(features)]
        rows.append(" ".join([str(node), *map(str, bits), f"class_{label}"]))
    by_class: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        by_class.setdefault(label, []).append(i)
    edges = set()
    while len(edges) < nodes * 2:
        a = rng.randrange(nodes)
        b = rng.choice(by_class[labels[a]]) if rng.random() < 0.8 else rng.randrange(nodes)
        if a != b:
            edges.add((ids[a], ids[b]))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cora.content").write_text("\n".join(rows) + "\n")
    (folder / "cora.cites").write_text("\n".join(f"{a} {b}" for a, b in sorted(edges)) + "\n")


def write_binarized_mnist(folder: Path, train: int = 1000, valid: int = 300) -> None:
    """``binarized_mnist.npz`` with ``train_data``/``valid_data``/``test_data``: float32 0/1
    rows of 784 pixels, each a noisy copy of one of ten random binary templates."""
    import numpy as np

    rng = np.random.RandomState(0)
    templates = rng.rand(10, 784) < 0.3
    def draw(n: int) -> "np.ndarray":
        rows = templates[rng.randint(0, 10, n)]
        flips = rng.rand(n, 784) < 0.05
        return (rows ^ flips).astype(np.float32)
    np.savez(folder / "binarized_mnist.npz", train_data=draw(train), valid_data=draw(valid),
             test_data=draw(valid))


def write_omniglot(folder: Path, classes: int = 1210, size: int = 28) -> None:
    """``omniglot/omniglot.npy``: the array OmniglotNShot caches, ``[classes, 20, 1, size,
    size]`` grey values in [0, 1] (1,200 classes to train on, the rest to test): each class a
    random stroke-like template, its 20 drawings noisy copies."""
    import numpy as np

    rng = np.random.RandomState(0)
    templates = (rng.rand(classes, 1, 7, 7) < 0.3).repeat(size // 7, 2).repeat(size // 7, 3)
    noise = rng.rand(classes, 20, 1, size, size) < 0.05
    data = (templates[:, None] ^ noise).astype(np.float32)
    (folder / "omniglot").mkdir(parents=True, exist_ok=True)
    np.save(folder / "omniglot" / "omniglot.npy", data)


# -- the recipes -------------------------------------------------------------------------------

NLP = "graykode+nlp-tutorial"

_LIST = [
    Recipe(
        "nnlm", NLP, "1-1.NNLM/NNLM_ipynb.py",
        "Bengio NNLM on three built-in sentences (Embedding, two Linear paths, Adam)"),
    Recipe(
        "word2vec_skipgram", NLP, "1-2.Word2Vec/Word2Vec-Skipgram(Softmax)_ipynb.py",
        "word2vec skip-gram with a softmax output on built-in sentences (NumPy draws batches)",
        seed=0, why="the program draws its batches with np.random unseeded: --seed seeds it"),
    Recipe(
        "textcnn", NLP, "2-1.TextCNN/TextCNN.py",
        "Kim's TextCNN: Conv2d filters over an embedded sentence, max-pool over time"),
    Recipe(
        "bilstm_attention", NLP, "4-3.Bi-LSTM(Attention)/Bi-LSTM(Attention)_ipynb.py",
        "bidirectional LSTM with attention over its outputs, toy sentiment classification"),
    Recipe(
        "seq2seq_attention", NLP, "4-2.Seq2Seq(Attention)/Seq2Seq(Attention)_ipynb.py",
        "RNN encoder-decoder with attention translating one toy sentence"),
    Recipe(
        "bert", NLP, "5-2.BERT/BERT_ipynb.py",
        "BERT pre-training (masked LM + next sentence) on a built-in dialogue",
        seed=0,
        edits=(Edit("5-2.BERT/BERT_ipynb.py", "    n_layers = 6 # number", "    n_layers = 2 # number",
                    "CPU time: 6 layers of d_model 768 take minutes; 2 layers of 96 seconds"),
               Edit("5-2.BERT/BERT_ipynb.py", "    d_model = 768 # Embedding Size",
                    "    d_model = 96 # Embedding Size", "CPU time (see n_layers)"),
               Edit("5-2.BERT/BERT_ipynb.py", "    d_ff = 768 * 4", "    d_ff = 96 * 4",
                    "CPU time (see n_layers)"),
               Edit("5-2.BERT/BERT_ipynb.py", "    n_heads = 12 #", "    n_heads = 4 #",
                    "CPU time (see n_layers)"),
               Edit("5-2.BERT/BERT_ipynb.py", "    d_k = d_v = 64 ", "    d_k = d_v = 24 ",
                    "CPU time (see n_layers)"),
               Edit("5-2.BERT/BERT_ipynb.py", "    for epoch in range(100):",
                    "    for epoch in range(30):", "CPU time: 30 epochs show the loss falling")),
        why="the program samples its batch with Python's random unseeded: --seed seeds it"),
    Recipe(
        "dynamic_net", "jcjohnson+pytorch-examples", "nn/dynamic_net.py",
        "a dynamic graph reusing one hidden layer a random number of times per forward",
        seed=0, default_dtype="float64",
        why="the program does not seed: --seed seeds torch and Python's random. In float32 the "
            "two runs agree to 1e-7 for 75 steps, then the round-off of a 1000-wide product "
            "summed in another order grows through 500 momentum steps (6% apart at step 474); "
            "in float64 (torch.set_default_dtype) they agree to 4e-14 throughout"),
    Recipe(
        "bigram_lm", "karpathy+ng-video-lecture", "bigram.py",
        "bigram language model: Embedding lookup table, get_batch, estimate_loss, generation",
        data=write_text, data_what="input.txt: 20,000 characters of made-up sentences",
        edits=(Edit("bigram.py", "max_iters = 3000", "max_iters = 600",
                    "CPU time: no argument sets the iteration count"),),),
]

_MAKEMORE_ARGS = ("-i", "names.txt", "-o", "out", "--max-steps", "501", "--num-workers", "0",
                  "--n-layer", "2", "--n-embd", "32", "--n-embd2", "32")
_MAKEMORE_WHY = ("--max-steps 501: one evaluation (step 500) and two sampling rounds; "
                 "--num-workers 0: the same batches (the sampler runs in the main process) "
                 "without worker processes on a 2-core machine; a smaller model for CPU time")
_LIST += [
    Recipe(
        f"makemore_{kind}", "karpathy+makemore", "makemore.py",
        f"makemore, --type {kind}: character-level name model, AdamW, InfiniteDataLoader "
        "(RandomSampler with replacement), evaluation, torch.save of the best model, "
        "SummaryWriter, multinomial sampling",
        args=_MAKEMORE_ARGS + ("--type", kind), data=write_names,
        data_what="names.txt: 2,000 made-up names", ignore=r"step time [\d.]+ms",
        why=_MAKEMORE_WHY)
    for kind in ("transformer", "gru", "mlp", "bow")
]
_LIST += [
    Recipe(
        "mingpt_sort", "karpathy+minGPT", "demo_ipynb.py",
        "minGPT (gpt-nano) learns to sort 6 digits: the mingpt package's GPT, Trainer "
        "(AdamW with decay groups, RandomSampler with replacement), greedy generation",
        files=("mingpt/__init__.py", "mingpt/model.py", "mingpt/trainer.py", "mingpt/utils.py"),
        edits=(Edit("demo_ipynb.py", "train_config.max_iters = 2000",
                    "train_config.max_iters = 150",
                    "CPU time, and the horizon over which the runs can agree (see why)"),
               Edit("demo_ipynb.py", "    train_score = eval_split(trainer, 'train', max_batches=50)\n"
                    "    test_score  = eval_split(trainer, 'test',  max_batches=50)",
                    "    train_score = eval_split(trainer, 'train', max_batches=4)\n"
                    "    test_score  = eval_split(trainer, 'test',  max_batches=4)",
                    "CPU time: 400 examples per split instead of 5,000")),
        ignore=r"iter_dt [\d.]+ms", default_dtype="float64",
        why="training is chaotic: a difference grows about tenfold every 20 iterations (AdamW "
            "divides by sqrt(v) of tiny gradients). In float32 the runs agree to 1e-5 for 30 "
            "iterations; in float64 (round-off 1e-16) for about 180, so float64 and 150 "
            "iterations, after which the model already sorts most sequences"),
]

_LIST += [
    Recipe(
        "tcn_copy_memory", "locuslab+TCN", "TCN/copy_memory/copymem_test.py",
        "temporal convolutional network (causal dilated Conv1d, weight_norm, Chomp1d, "
        "residual blocks) on the copy-memory task, RMSprop, gradient clipping",
        files=("TCN/__init__.py", "TCN/tcn.py",
               "TCN/copy_memory/model.py", "TCN/copy_memory/utils.py"),
        args=("--cuda", "--blank_len", "50", "--epochs", "1", "--levels", "4", "--ksize", "4"),
        seed=0, ignore=r"ms/batch +[\d.]+", drift_after=r"\|   300/",
        final=r"Average loss: ([\d.]+)", final_name="test loss", tolerance=0.01,
        learned=lambda v: v < 0.5,
        why="--cuda turns CUDA off (the flag is store_false); --blank_len 50, one epoch, "
            "4 levels of kernel 4 for CPU time; the data comes from np.random unseeded: "
            "--seed seeds it. Per-batch losses agree to 1e-7 up to batch 255, where the "
            "model starts to copy and training turns chaotic (differences grow 30-fold every "
            "15 batches); the test loss (2.30 at the start) is then held to 0.01"),
]

RESNET = "tutorials/02-intermediate/deep_residual_network/main.py"
_LIST += [
    Recipe(
        "resnet_cifar", "yunjey+pytorch-tutorial", RESNET,
        "ResNet (residual blocks, BatchNorm, downsampling shortcuts) on CIFAR-10 with "
        "Pad/RandomHorizontalFlip/RandomCrop augmentation, Adam, lr decay through param_groups",
        standins=("torchvision",), default_dtype="float64",
        edits=(Edit(RESNET, "num_epochs = 80", "num_epochs = 2", "CPU time"),
               Edit(RESNET, "        if (i+1) % 100 == 0:", "        if (i+1) % 2 == 0:",
                    "the stand-in's 1,024 images make 11 steps an epoch: print every 2nd")),
        why="CIFAR-10 comes from the torchvision stand-in (1,024 synthetic 32x32 RGB images "
            "to train on, 256 to test); its random flips and crops draw with torch.rand/"
            "randint as torchvision's, so the shared stream covers them"),
]

_CORA = "a random 1,600-node, 7-class graph in Cora's file formats (64 binary features)"
_LIST += [
    Recipe(
        "pygat", "Diego999+pyGAT", "train.py",
        "graph attention network (dense attention heads, ELU, dropout on features and "
        "attention), Adam, early stopping with a checkpoint file per epoch",
        files=("layers.py", "models.py", "utils.py"),
        args=("--no-cuda", "--epochs", "30", "--patience", "100"),
        data=lambda d: write_cora(d / "data" / "cora"), data_what=_CORA,
        ignore=r"time: [\d.]+s|Total time elapsed: [\d.]+s",
        why="Cora is not in the mirror (over 4 MiB): a synthetic graph in its format; "
            "--epochs 30 for CPU time"),
    Recipe(
        "pygcn", "tkipf+pygcn", "pygcn/train.py",
        "Kipf & Welling GCN on Cora: the normalised adjacency as a torch.sparse tensor, "
        "torch.spmm, Adam",
        files=("pygcn/__init__.py", "pygcn/layers.py", "pygcn/models.py", "pygcn/utils.py"),
        args=("--no-cuda", "--epochs", "50"), cwd_in="pygcn", pythonpath=("",),
        data=lambda d: write_cora(d.parent / "data" / "cora"), data_what=_CORA,
        ignore=r"time: [\d.]+s|Total time elapsed: [\d.]+s",
        why="as pygat; the program imports the `pygcn` package, which its README installs "
            "(setup.py): the repository root is put on PYTHONPATH instead"),
]

_LIST += [
    Recipe(
        "made", "karpathy+pytorch-made", "run.py",
        "MADE: masked linear layers (masks as buffers, resampled orderings), BCE with "
        "logits, Adam with weight decay, StepLR stepped with an epoch argument",
        files=("made.py",), args=("-d", "binarized_mnist.npz", "-q", "200", "-n", "4"),
        data=write_binarized_mnist,
        data_what="binarized_mnist.npz: 1,000/300/300 noisy binary 784-pixel rows",
        edits=(Edit("run.py", "    xtr = torch.from_numpy(xtr).cuda()",
                    "    xtr = torch.from_numpy(xtr)", "CUDA-only: the CPU run keeps data on the CPU"),
               Edit("run.py", "    xte = torch.from_numpy(xte).cuda()",
                    "    xte = torch.from_numpy(xte)", "CUDA-only (as above)"),
               Edit("run.py", "    model.cuda()\n", "    model.cpu()\n",
                    "CUDA-only (as above)"),
               Edit("run.py", "    for epoch in range(100):", "    for epoch in range(3):",
                    "CPU time")),
        why="binarized MNIST is a download: synthetic binary rows of the same shape; "
            "-q 200 -n 4: a smaller hidden layer, and four orderings to exercise mask "
            "resampling"),
]

_TORCHDIFFEQ = tuple(f"torchdiffeq/{p}" for p in (
    "__init__.py", "_impl/__init__.py", "_impl/adaptive_heun.py", "_impl/adjoint.py",
    "_impl/bosh3.py", "_impl/dopri5.py", "_impl/dopri8.py", "_impl/event_handling.py",
    "_impl/fehlberg2.py", "_impl/fixed_adams.py", "_impl/fixed_grid.py",
    "_impl/fixed_grid_implicit.py", "_impl/interp.py", "_impl/misc.py", "_impl/odeint.py",
    "_impl/rk_common.py", "_impl/scipy_wrapper.py", "_impl/solvers.py", "_impl/tsit5.py"))
_LIST += [
    Recipe(
        f"neural_ode{suffix}", "rtqichen+torchdiffeq", "examples/ode_demo.py",
        "neural ODE fitting a spiral with torchdiffeq's adaptive dopri5 solver"
        + (" and the adjoint method (odeint_adjoint: a custom autograd Function solving "
           "the augmented ODE backwards)" if suffix else ""),
        files=_TORCHDIFFEQ, pythonpath=("",), seed=0, default_dtype="float64",
        args=("--niters", "100" if suffix else "200", "--test_freq", "20") + extra,
        why="the package the program imports is the repository's own (its setup.py "
            "installs it): the repository root goes on PYTHONPATH; the batches come from "
            "np.random unseeded: --seed seeds it; --niters for CPU time")
    for suffix, extra in (("", ()), ("_adjoint", ("--adjoint",)))
]

SIMPLE_PG = "spinup/examples/pytorch/pg_math/1_simple_pg.py"
_LIST += [
    Recipe(
        "simple_pg", "openai+spinningup", SIMPLE_PG,
        "the simplest policy gradient (REINFORCE, no baseline) on CartPole: "
        "Categorical(logits=...), sample, log_prob, Adam",
        standins=("gym",), env={"GYM_STANDIN_API": "0.21"}, seed=0,
        edits=(Edit(SIMPLE_PG, "lr=1e-2, \n          epochs=50, batch_size=5000",
                    "lr=1e-2, \n          epochs=6, batch_size=5000", "CPU time"),),
        why="gym's CartPole from the stand-in (gym 0.21's API, which the program uses); "
            "the program does not seed: --seed seeds torch (and the stand-in's resets are "
            "seeded)"),
    Recipe(
        "ppo", "seungeunrho+minimalRL", "ppo.py",
        "PPO with a clipped objective and GAE, shared actor-critic network, Categorical, "
        "smooth L1 value loss",
        standins=("gym",), seed=0,
        edits=(Edit("ppo.py", "    for n_epi in range(10000):", "    for n_epi in range(101):",
                    "CPU time: 100 episodes, five printed averages"),),
        why="gym's CartPole from the stand-in (gym 0.26's API, which the program uses); "
            "the program does not seed: --seed seeds torch"),
]

_LIST += [
    Recipe(
        "forward_forward", "pytorch+examples", "mnist_forward_forward/main.py",
        "Hinton's Forward-Forward: each layer (an nn.Linear subclass with its own Adam) "
        "trained alone on the goodness of positive vs. negative data, no end-to-end backprop",
        standins=("torchvision",), seed=0,
        args=("--epochs", "60", "--train_size", "2048", "--test_size", "512"),
        why="MNIST from the torchvision stand-in (2,048/512 synthetic digits); the program "
            "takes --seed but never seeds: the runner's --seed seeds torch; --epochs for CPU "
            "time"),
]

_LIST += [
    Recipe(
        "cgan", "eriklindernoren+PyTorch-GAN", "implementations/cgan/cgan.py",
        "conditional GAN: label Embedding concatenated to the noise and to the image, MLP "
        "generator and discriminator with LeakyReLU/BatchNorm1d/Dropout, MSE adversarial loss, "
        "legacy FloatTensor/LongTensor constructors, save_image",
        standins=("torchvision",), seed=0, args=("--n_epochs", "1"),
        drift_after=r"\[Batch 14/", final=r"D loss: ([\d.]+)\]", final_name="D loss",
        tolerance=0.002, learned=lambda v: v < 0.1,
        why="adversarial training amplifies round-off: the losses agree to 1e-6 up to batch "
            "13, then part by about tenfold every 5 batches (1e-4 at batch 30); the float32 "
            "legacy constructors rule out a float64 run. MNIST from the torchvision stand-in (2,048 synthetic digits, Resize to 32 by PIL "
            "as torchvision's); noise and labels come from np.random unseeded: --seed seeds "
            "it; one epoch (32 batches)"),
]

_LIST += [
    Recipe(
        "normalizing_flows", "karpathy+pytorch-normalizing-flows", "nflib1_ipynb.py",
        "normalizing flows on two moons: neural spline coupling flows (NSF_CL) with "
        "Invertible1x1Conv and ActNorm, a TransformedDistribution/MultivariateNormal prior, "
        "NLL training, then the inverse pass and sampling for the plots",
        files=("nflib/__init__.py", "nflib/flows.py", "nflib/made.py", "nflib/nets.py",
               "nflib/spline_flows.py"), seed=0,
        edits=(Edit("nflib1_ipynb.py", "for k in range(1000):", "for k in range(301):",
                    "CPU time: four printed losses"),
               Edit("nflib1_ipynb.py", "for k in range(500):", "for k in range(11):",
                    "CPU time: the second loop redraws its figure every 10 steps (two figures)")),
        exact_first=3, final=r"^([\d.]+)$", final_name="NLL at step 300", tolerance=1.0,
        learned=lambda v: v < 280,
        why="two moons come from scikit-learn's make_moons, which draws from np.random "
            "unseeded: --seed seeds it. The losses agree to 2e-6 to step 100, then part "
            "slowly (3e-4 at step 280): float32 round-off, amplified where a point falls on "
            "a spline bin edge (searchsorted); the float32 data rules out a float64 run. "
            "The NLL (327 at the start) is held to 1.0"),
]

_LIST += [
    Recipe(
        "maml", "dragen1860+MAML-Pytorch", "omniglot_train.py",
        "MAML on N-way K-shot tasks: a functional learner (F.conv2d/F.batch_norm with explicit "
        "weight lists), inner-loop autograd.grad steps on fast weights, the query loss "
        "backpropagated through them, outer Adam; fine-tuning on a deep copy at test time",
        files=("meta.py", "learner.py", "omniglotNShot.py", "omniglot.py"),
        args=("--epoch", "51", "--task_num", "8", "--update_step", "3",
              "--update_step_test", "5"),
        data=write_omniglot, standins=("torchvision",),
        data_what="omniglot/omniglot.npy (the loader's cache): 1,210 classes x 20 noisy "
                  "copies of a random 28x28 binary template",
        edits=(Edit("omniglot_train.py", "    device = torch.device('cuda')",
                    "    device = torch.device('cpu')", "CUDA-only: the one device line"),
               Edit("omniglotNShot.py", "y_spts = np.array(y_spts).astype(np.int)",
                    "y_spts = np.array(y_spts).astype(int)",
                    "NumPy 2 removed the np.int alias (of int)"),
               Edit("omniglotNShot.py", "y_qrys = np.array(y_qrys).astype(np.int)",
                    "y_qrys = np.array(y_qrys).astype(int)", "as above")),
        drift_after=r"^Test acc", final=r"Test acc: \[[^\]]* ([\d.]+)\]",
        final_name="test accuracy after fine-tuning", tolerance=0.01,
        learned=lambda v: v > 0.5,
        why="Everything up to the first meta-step's accuracies agrees exactly; the 1,000 "
            "fine-tunings of the test round (75,000 query predictions, lr 0.4) then flip a "
            "few near-tied predictions (0.9795 vs 0.9785 after 5 steps), and the float32 "
            "task batches rule out a float64 run. "
            "Omniglot is a download; the loader reads its own cache file when present, so "
            "the synthetic array is written there. --epoch 51 (two printed training "
            "accuracies and one test round of 1,000 fine-tunings), 8 tasks a batch, 3/5 inner "
            "steps for CPU time"),
]

RECIPES: dict[str, Recipe] = {r.name: r for r in _LIST}
