import math

import pytest
import torch

from sklearn_shufdiv.embedders._training._loss import NTXentLoss, nt_xent_loss, prototype_loss


def reference_nt_xent(views, temperature, keys=None):
    """SimCLR's NT-Xent written out view by view."""
    n_views = len(views)
    half = n_views // 2
    z = torch.nn.functional.normalize(views.double(), dim=1)
    total = 0.0
    for i in range(n_views):
        positive = (i + half) % n_views
        denominator = 0.0
        for j in range(n_views):
            if j == i:
                continue
            if keys is not None and j != positive and keys[j] in (keys[i], keys[positive]):
                continue
            denominator += math.exp(float(z[i] @ z[j]) / temperature)
        total -= math.log(math.exp(float(z[i] @ z[positive]) / temperature) / denominator)
    return total / n_views


@pytest.mark.parametrize("n_pairs", [2, 3, 7])
@pytest.mark.parametrize("temperature", [0.05, 0.5, 1.0])
def test_matches_reference(n_pairs, temperature):
    views = torch.randn(2 * n_pairs, 5, generator=torch.Generator().manual_seed(n_pairs))
    expected = reference_nt_xent(views, temperature)
    assert float(nt_xent_loss(views, temperature)) == pytest.approx(expected, rel=1e-5)


def test_duplicate_documents_are_not_negatives():
    # Mutual neighbors: pair (doc 0, doc 1) and pair (doc 1, doc 0), plus pair (2, 3).
    e = torch.randn(4, 6, generator=torch.Generator().manual_seed(0))
    views = torch.stack([e[0], e[1], e[2], e[1], e[0], e[3]])
    keys = torch.tensor([0, 1, 2, 1, 0, 3])
    masked = float(nt_xent_loss(views, 0.1, keys))
    assert masked == pytest.approx(reference_nt_xent(views, 0.1, keys.tolist()), rel=1e-5)
    # Without the keys, the copies of view 0's own text act as hard negatives.
    assert float(nt_xent_loss(views, 0.1)) > masked


def test_perfect_pairs_have_low_loss_and_random_pairs_do_not():
    anchors = torch.eye(8)
    aligned = float(nt_xent_loss(torch.cat([anchors, anchors]), 0.05))
    shuffled = float(nt_xent_loss(torch.cat([anchors, anchors.roll(1, 0)]), 0.05))
    assert aligned < 1e-6 < shuffled


def test_module_and_gradient():
    """The module's value and gradient are the reference's, sign included: its gradient by
    central differences of the view-by-view reference (a negated loss fails both)."""
    base = torch.randn(6, 4, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    keys = [0, 1, 2, 0, 4, 5]
    views = base.clone().float().requires_grad_()
    loss = NTXentLoss(temperature=0.2)(views, torch.tensor(keys))
    loss.backward()
    assert views.grad is not None and torch.isfinite(views.grad).all()
    value = float(loss.detach())
    assert value == pytest.approx(reference_nt_xent(base, 0.2, keys), rel=1e-5)
    assert value > 0
    step, numeric = 1e-6, torch.zeros_like(base)
    for index in range(base.numel()):
        shift = torch.zeros(base.numel(), dtype=torch.float64)
        shift[index] = step
        shift = shift.view_as(base)
        numeric.view(-1)[index] = (reference_nt_xent(base + shift, 0.2, keys)
                                   - reference_nt_xent(base - shift, 0.2, keys)) / (2 * step)
    torch.testing.assert_close(views.grad.double(), numeric, rtol=1e-3, atol=1e-5)
    # A step against the gradient lowers the loss: training minimises it.
    lower = reference_nt_xent(base - 0.01 * views.grad.double(), 0.2, keys)
    assert lower < reference_nt_xent(base, 0.2, keys)
    assert "temperature=0.2" in repr(NTXentLoss(0.2))


@pytest.mark.parametrize("n_views", [2, 5])
def test_too_few_or_odd_views(n_views):
    with pytest.raises(ValueError, match="even number of at least 4"):
        nt_xent_loss(torch.randn(n_views, 3))


def reference_grouped(views, temperature, keys, groups, same_group):
    """Cluster-aware NT-Xent written out view by view: the views of the anchor's group
    (not -1) are left out of the denominator ("exclude") or are positives ("positive",
    the mean of -log softmax over the anchor's positives)."""
    n_views = len(views)
    half = n_views // 2
    z = torch.nn.functional.normalize(views.double(), dim=1)
    sim = [[float(z[i] @ z[j]) / temperature for j in range(n_views)] for i in range(n_views)]
    total = 0.0
    for i in range(n_views):
        partner = (i + half) % n_views
        duplicate = {j for j in range(n_views)
                     if j != partner and keys[j] in (keys[i], keys[partner])}
        grouped = {j for j in range(n_views) if groups[i] >= 0 and groups[j] == groups[i]
                   and j not in (i, partner) and j not in duplicate}
        others = [j for j in range(n_views) if j != i and j not in duplicate
                  and (same_group == "positive" or j not in grouped)]
        log_denominator = math.log(sum(math.exp(sim[i][j]) for j in others))
        positives = [partner] + (sorted(grouped) if same_group == "positive" else [])
        total += sum(log_denominator - sim[i][p] for p in positives) / len(positives)
    return total / n_views


@pytest.mark.parametrize("same_group", ["exclude", "positive"])
def test_grouped_views_match_the_reference(same_group):
    # 4 pairs; a duplicate text (key 0 twice), two pseudo-clusters and an unknown (-1).
    e = torch.randn(8, 5, generator=torch.Generator().manual_seed(3))
    views = e.clone()
    views[5] = e[0]  # view 5 is a copy of view 0's text
    keys = [0, 1, 2, 3, 4, 0, 6, 7]
    groups = [0, 0, 1, -1, 0, 0, 1, 1]
    got = float(nt_xent_loss(views, 0.2, torch.tensor(keys), torch.tensor(groups),
                             same_group))
    assert got == pytest.approx(reference_grouped(views, 0.2, keys, groups, same_group),
                                rel=1e-5)
    # The groups change the loss; with every group -1 (none) they change nothing.
    plain = float(nt_xent_loss(views, 0.2, torch.tensor(keys)))
    assert got != pytest.approx(plain, rel=1e-3)
    none = torch.full((8,), -1)
    assert float(nt_xent_loss(views, 0.2, torch.tensor(keys), none, same_group)) == \
        pytest.approx(plain, rel=1e-6)


def test_bad_same_group():
    views = torch.randn(4, 3)
    with pytest.raises(ValueError, match="same_group must be 'exclude' or 'positive'"):
        nt_xent_loss(views, 0.5, groups=torch.zeros(4, dtype=torch.long), same_group="drop")


def reference_prototype_loss(views, prototypes, labels, temperature):
    """ProtoNCE's prototype term written out view by view (labels -1 skipped)."""
    z = torch.nn.functional.normalize(views.double(), dim=1)
    c = torch.nn.functional.normalize(prototypes.double(), dim=1)
    terms = []
    for i, label in enumerate(labels):
        if label < 0:
            continue
        logits = [float(z[i] @ c[j]) / temperature for j in range(len(c))]
        terms.append(-logits[label] + math.log(sum(math.exp(s) for s in logits)))
    return sum(terms) / len(terms)


@pytest.mark.parametrize("temperature", [0.1, 0.5])
def test_prototype_loss_matches_reference(temperature):
    generator = torch.Generator().manual_seed(3)
    views = torch.randn(8, 5, generator=generator)
    prototypes = torch.randn(3, 5, generator=generator) * 4  # any norm: normalised
    labels = [0, 2, -1, 1, 1, -1, 0, 2]
    loss = prototype_loss(views, prototypes, torch.tensor(labels), temperature)
    expected = reference_prototype_loss(views, prototypes, labels, temperature)
    assert float(loss) == pytest.approx(expected, rel=1e-5)
    # The unlabelled views add nothing: the same value without them.
    known = [i for i, label in enumerate(labels) if label >= 0]
    alone = prototype_loss(views[known], prototypes, torch.tensor(labels)[known], temperature)
    assert float(alone) == pytest.approx(float(loss), rel=1e-6)


def test_prototype_loss_pulls_views_towards_their_center():
    views = torch.tensor([[1.0, 0.3], [0.2, 1.0]], requires_grad=True)
    prototypes = torch.eye(2)
    prototype_loss(views, prototypes, torch.tensor([0, 1]), 0.2).backward()
    # Gradient descent moves view 0 towards e0 (its y decreases) and view 1 towards e1.
    assert views.grad[0, 1] > 0 and views.grad[1, 0] > 0
    # With no labelled view the term is 0, and still a graph (a batch outside the sample).
    none = prototype_loss(views, prototypes, torch.tensor([-1, -1]), 0.2)
    assert float(none.detach()) == 0.0 and none.requires_grad


def test_the_pieces_compose():
    """The masks and the one masked InfoNCE are the losses' building blocks; a weighted
    sum of modules is the sum of their values."""
    from sklearn_shufdiv.embedders._training._loss import (
        PrototypeLoss,
        WeightedSum,
        contrastive_masks,
        info_nce,
    )

    generator = torch.Generator().manual_seed(4)
    views = torch.randn(6, 4, generator=generator)
    keys, groups = torch.arange(6) % 3, torch.tensor([0, 1, -1, 1, 0, -1])
    prototypes = torch.randn(2, 4, generator=generator)
    positive, excluded = contrastive_masks(6, keys, groups, "positive")
    # Each row: its partner and the other views of its group are positives, never excluded.
    assert positive[0].tolist() == [False, False, False, True, True, False]
    assert not (positive & excluded).any() and excluded.diagonal().all()
    assert float(info_nce(views, positive, excluded, 0.3)) == pytest.approx(
        reference_grouped(views, 0.3, keys.tolist(), groups.tolist(), "positive"), rel=1e-5)
    total = WeightedSum([(0.5, NTXentLoss(0.3)), (2.0, PrototypeLoss(0.3))])
    assert float(total(views, keys, groups, prototypes)) == pytest.approx(
        0.5 * float(nt_xent_loss(views, 0.3, keys))
        + 2.0 * float(prototype_loss(views, prototypes, groups, 0.3)), rel=1e-6)
    assert "weights=[0.5, 2.0]" in repr(total)
