"""VSK and LinearVSK against closed-form numpy kernels, PSD checks and the paper's identities."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
import scipy.stats

from pymc_vsk import VSK, LinearVSK, scaling
from tests import reference as ref
from tests.conftest import BASE_KERNELS, SCALINGS, evaluate, inputs

LS = 0.4


@pytest.mark.parametrize("psi_name", list(SCALINGS))
@pytest.mark.parametrize("kernel", list(BASE_KERNELS))
def test_full_cross_and_diag_equal_closed_form_numpy(kernel, psi_name):
    d, make_psi, psi_ref = SCALINGS[psi_name]
    psi = make_psi()
    X, Xs = inputs(d, 15, seed=1), inputs(d, 7, seed=2)
    cov = VSK(BASE_KERNELS[kernel](d + psi.q, LS), psi)
    K, Ks, Kd = evaluate(cov(X), cov(X, Xs), cov(X, diag=True))

    phi = ref.RADIAL[kernel]
    ZX, ZXs = ref.lift(X, psi_ref(X)), ref.lift(Xs, psi_ref(Xs))
    np.testing.assert_allclose(K, ref.loop_kernel(phi, ZX, ZX, LS), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(Ks, ref.loop_kernel(phi, ZX, ZXs, LS), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(Kd, np.diag(ref.loop_kernel(phi, ZX, ZX, LS)), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(Kd, np.diag(K))


@pytest.mark.parametrize("psi_name", list(SCALINGS))
@pytest.mark.parametrize("kernel", list(BASE_KERNELS))
def test_gram_matrix_is_positive_semidefinite(kernel, psi_name):
    d, make_psi, _ = SCALINGS[psi_name]
    psi = make_psi()
    cov = VSK(BASE_KERNELS[kernel](d + psi.q, 0.3), psi)
    for seed in range(3):
        X = inputs(d, 40, seed=100 + seed)
        (K,) = evaluate(cov(X))
        np.testing.assert_array_equal(K, K.T)
        assert np.linalg.eigvalsh(K).min() >= -1e-10 * np.trace(K)


@pytest.mark.parametrize("psi_name", ["jump", "smooth_jump", "corner", "disk", "weierstrass"])
def test_gaussian_vsk_is_product_of_two_gaussian_kernels(psi_name):
    """Section 3.1: exp(-(|x-x'|² + |ψ-ψ'|²)/2ℓ²) = k_ℓ(x, x') k_ℓ(ψ(x), ψ(x'))."""
    d, make_psi, psi_ref = SCALINGS[psi_name]
    X = inputs(d, 20, seed=3)
    psi = make_psi()
    (K,) = evaluate(VSK(pm.gp.cov.ExpQuad(d + 1, ls=LS), psi)(X))
    P = psi_ref(X)[:, None]
    (Kx, Kpsi) = evaluate(pm.gp.cov.ExpQuad(d, ls=LS)(X), pm.gp.cov.ExpQuad(1, ls=LS)(P))
    np.testing.assert_allclose(K, Kx * Kpsi, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("psi_name", list(SCALINGS))
@pytest.mark.parametrize("kernel", list(BASE_KERNELS))
def test_elementwise_bound_of_proposition_3_6(kernel, psi_name):
    """(K^Ψ)_ij <= (K)_ij for radially decreasing φ: lifting only increases distances."""
    d, make_psi, _ = SCALINGS[psi_name]
    psi = make_psi()
    X = inputs(d, 30, seed=4)
    (K_vsk,) = evaluate(VSK(BASE_KERNELS[kernel](d + psi.q, LS), psi)(X))
    K = ref.loop_kernel(ref.RADIAL[kernel], X, X, LS)
    assert np.all(K_vsk <= K + 1e-14)
    assert np.any(K_vsk < K - 1e-3) or psi_name == "from_function"


def test_ard_length_scales_over_lifted_coordinates():
    X = inputs(1, 12, seed=5)
    ls = np.array([0.3, 2.0])  # ℓ for x, separate ℓ for the ψ column
    (K,) = evaluate(VSK(pm.gp.cov.Matern52(2, ls=ls), scaling.Jump(0.5))(X))
    Z = ref.lift(X, ref.psi_jump(X))
    expected = ref.loop_kernel(ref.RADIAL["Matern52"], Z, Z, ls)
    np.testing.assert_allclose(K, expected, rtol=1e-12, atol=1e-12)


def test_active_dims_select_the_columns_psi_and_the_kernel_act_on():
    X = inputs(2, 10, seed=6)
    on_col1 = VSK(pm.gp.cov.ExpQuad(2, ls=LS), scaling.Jump(0.5), input_dim=2, active_dims=[1])
    alone = VSK(pm.gp.cov.ExpQuad(2, ls=LS), scaling.Jump(0.5))
    K1, K2 = evaluate(on_col1(X), alone(X[:, [1]]))
    np.testing.assert_allclose(K1, K2, rtol=1e-14)


def test_composes_with_sums_products_scalars_and_other_covariances():
    X = inputs(2, 10, seed=7)
    vsk = VSK(pm.gp.cov.Matern32(2, ls=LS), scaling.Jump(0.5), input_dim=2, active_dims=[0])
    other = pm.gp.cov.ExpQuad(2, ls=0.7, active_dims=[1])
    combined = 2.0 * vsk + other * vsk + 0.5
    powered = vsk**2
    (K, Kv, Ko, Kp) = evaluate(combined(X), vsk(X), other(X), powered(X))
    np.testing.assert_allclose(K, 2.0 * Kv + Ko * Kv + 0.5, rtol=1e-12)
    np.testing.assert_allclose(Kp, Kv**2, rtol=1e-12)
    (Kd,) = evaluate(combined(X, diag=True))
    np.testing.assert_allclose(Kd, np.diag(K), rtol=1e-12)


def _jump_data(n=20, seed=8):
    rng = np.random.default_rng(seed)
    X = np.sort(rng.uniform(0, 1, n))[:, None]
    y = ref.jump_target(X) + 0.1 * rng.normal(size=n)
    return X, y


def test_marginal_gp_log_likelihood_equals_scipy_multivariate_normal():
    X, y = _jump_data()
    with pm.Model() as model:
        ls = pm.HalfNormal("ls", 1.0)
        cov = 1.5**2 * VSK(pm.gp.cov.Matern52(2, ls=ls), scaling.Jump(0.5))
        gp = pm.gp.Marginal(cov_func=cov)
        gp.marginal_likelihood("y", X=X, y=y, sigma=0.2)
    point = {"ls_log__": np.log(0.15)}
    logp = model.compile_logp(vars=[model["y"]], sum=True)(point)
    Z = ref.lift(X, ref.psi_jump(X))
    K = 1.5**2 * ref.loop_kernel(ref.RADIAL["Matern52"], Z, Z, 0.15) + (0.04 + 1e-6) * np.eye(
        len(X)
    )
    expected = scipy.stats.multivariate_normal(np.zeros(len(X)), K).logpdf(y)
    np.testing.assert_allclose(logp, expected, rtol=1e-10)


def test_vfe_with_inducing_points_at_the_data_equals_the_exact_marginal():
    """MarginalApprox (VFE) with Xu = X has Q = K and zero trace term: the exact likelihood."""
    X, y = _jump_data(15)
    cov = 1.2**2 * VSK(pm.gp.cov.ExpQuad(2, ls=0.2), scaling.Jump(0.5))
    with pm.Model() as exact:
        pm.gp.Marginal(cov_func=cov).marginal_likelihood("y", X=X, y=y, sigma=0.3)
    with pm.Model() as vfe:
        pm.gp.MarginalApprox(approx="VFE", cov_func=cov).marginal_likelihood(
            "y", X=X, Xu=X, y=y, sigma=0.3
        )
    np.testing.assert_allclose(vfe.compile_logp()({}), exact.compile_logp()({}), rtol=1e-5)


def test_latent_gp_prior_and_conditional_build_and_evaluate():
    X, y = _jump_data(12)
    Xnew = np.linspace(0, 1, 7)[:, None]
    cov = VSK(pm.gp.cov.Matern32(2, ls=0.2), scaling.Jump(0.5))
    with pm.Model() as model:
        gp = pm.gp.Latent(cov_func=cov)
        f = gp.prior("f", X=X)
        pm.Normal("y", mu=f, sigma=0.1, observed=y)
        gp.conditional("fnew", Xnew=Xnew)
    logp = model.compile_logp()(model.initial_point())
    assert np.isfinite(logp)
    draws = pm.draw(model["fnew"], draws=2, random_seed=1)
    assert draws.shape == (2, 7) and np.all(np.isfinite(draws))


def test_gradient_flows_through_random_psi_parameters():
    """d logp / d(location, amplitude) of a smooth jump: non-zero, equal to finite differences."""
    X, y = _jump_data(25)
    with pm.Model() as model:
        loc = pm.Uniform("loc", 0.1, 0.9)
        amp = pm.HalfNormal("amp", 2.0)
        psi = scaling.SmoothJump(loc, amplitudes=amp, width=0.05)
        cov = 2.0**2 * VSK(pm.gp.cov.Matern52(2, ls=0.15), psi)
        pm.gp.Marginal(cov_func=cov).marginal_likelihood("y", X=X, y=y, sigma=0.1)
    logp = model.compile_logp()
    dlogp = model.compile_dlogp()
    point = {"loc_interval__": np.array(0.1), "amp_log__": np.array(0.2)}
    grad = dlogp(point)
    assert np.all(np.abs(grad) > 1e-3)
    for i, name in enumerate(["loc_interval__", "amp_log__"]):
        h = 1e-6
        up, down = dict(point), dict(point)
        up[name] = point[name] + h
        down[name] = point[name] - h
        fd = (logp(up) - logp(down)) / (2 * h)
        np.testing.assert_allclose(grad[i], fd, rtol=1e-5)


def test_linear_vsk_equals_eq_16():
    X, Xs = inputs(1, 9, seed=9), inputs(1, 4, seed=10)
    cov = LinearVSK(1, scaling.Corner())
    K, Ks, Kd = evaluate(cov(X), cov(X, Xs), cov(X, diag=True))
    P, Ps = ref.psi_corner(X), ref.psi_corner(Xs)
    np.testing.assert_allclose(K, X @ X.T + np.outer(P, P), rtol=1e-12)
    np.testing.assert_allclose(Ks, X @ Xs.T + np.outer(P, Ps), rtol=1e-12)
    np.testing.assert_allclose(Kd, np.diag(K), rtol=1e-12)


def test_diagonal_is_exactly_one_without_the_sqrt_nugget():
    """PyMC adds 1e-12 under sqrt (Matern12 diag = 1 - 1e-6); the VSK's diagonal is exact."""
    X = inputs(1, 5, seed=11)
    (K,) = evaluate(VSK(pm.gp.cov.Matern12(2, ls=0.3), scaling.Jump(0.5))(X))
    np.testing.assert_array_equal(np.diag(K), np.ones(5))


def test_psi_as_plain_callable_with_q():
    X = inputs(1, 8, seed=12)
    cov = VSK(
        pm.gp.cov.ExpQuad(3, ls=LS),
        lambda X: pt.stack([pt.sin(3 * X[:, 0]), pt.cos(3 * X[:, 0])], axis=1),
        q=2,
    )
    (K,) = evaluate(cov(X))
    Z = ref.lift(X, np.c_[np.sin(3 * X[:, 0]), np.cos(3 * X[:, 0])])
    np.testing.assert_allclose(K, ref.loop_kernel(ref.RADIAL["ExpQuad"], Z, Z, LS), rtol=1e-12)


def test_a_new_base_kernel_is_one_class_found_by_name():
    from pymc_vsk import build_model
    from pymc_vsk.kernels import base_kernels, needs_only_squared_distance

    class Cauchy(pm.gp.cov.Stationary):
        """φ(r) = 1 / (1 + r²): a radial kernel written only through full_from_distance."""

        def full_from_distance(self, dist, squared=False):
            r2 = dist if squared else pt.square(dist)
            return 1.0 / (1.0 + r2)

    assert base_kernels()["cauchy"] is Cauchy
    assert needs_only_squared_distance(Cauchy)
    X = inputs(1, 12, seed=4)
    (K,) = evaluate(VSK(Cauchy(2, ls=LS), scaling.Jump(0.5))(X))
    Z = ref.lift(X, ref.psi_jump(X))
    np.testing.assert_allclose(K, ref.loop_kernel(lambda r: 1 / (1 + r**2), Z, Z, LS), rtol=1e-12)
    model, _ = build_model(X, np.sin(6 * X[:, 0]), psi=scaling.Jump(0.5), kernel="cauchy")
    assert np.isfinite(model.compile_logp()(model.initial_point()))


def test_the_lifting_is_the_same_for_arrays_and_tensors():
    from pymc_vsk.lifting import lift

    X = inputs(2, 9, seed=5)
    psi = scaling.Stack([scaling.Disk([0.5, 0.5], 0.3), scaling.Weierstrass(2)])
    expected = ref.lift(X, np.c_[ref.psi_disk(X), ref.psi_weierstrass(X, 2)])
    np.testing.assert_allclose(lift(X, psi), expected, rtol=1e-14)
    (symbolic,) = evaluate(lift(pt.as_tensor_variable(X), psi))
    np.testing.assert_allclose(symbolic, expected, rtol=1e-14)


def test_the_lifting_refuses_text_and_inputs_that_are_not_two_dimensional():
    """Text such as "0.1" was parsed into numbers by the array path, and a 1-D tensor failed
    deep inside pytensor with "too many indices for tensor"."""
    from pymc_vsk.lifting import lift, psi_columns

    psi = scaling.Jump(0.5)
    with pytest.raises(TypeError, match="X must hold numbers, not text"):
        lift(np.array([["0.1"], ["0.7"]]), psi)
    with pytest.raises(TypeError, match="X must hold numbers, not text"):
        psi_columns(psi, np.array([["0.1"], ["0.7"]]))
    with pytest.raises(ValueError, match=r"2-D .* got 1 dimension\(s\).*X\[:, None\]"):
        lift(pt.as_tensor_variable(np.linspace(0.0, 1.0, 5)), psi)
    (lifted,) = evaluate(lift(pt.as_tensor_variable(np.array([[0], [1]])), psi))
    np.testing.assert_array_equal(lifted, [[0.0, 0.0], [1.0, 1.0]])


@pytest.mark.parametrize("container", [False, True])
def test_integer_inputs_give_the_kernel_of_their_float_values(container):
    """Day numbers or years as integers: ψ was cast to the integer type of X, so a jump of
    amplitude 0.5 became 0 and the VSK the stationary kernel, without a word."""
    Xi = np.arange(10)[:, None]
    lifted = ref.lift(Xi.astype(float), ref.psi_jump(Xi.astype(float), loc=4.5, amp=0.5))
    psi = scaling.Jump(4.5, amplitudes=0.5)
    kernels = [VSK(pm.gp.cov.ExpQuad(2, ls=3.0), psi), LinearVSK(1, psi)]
    references = [ref.loop_kernel(ref.RADIAL["ExpQuad"], lifted, lifted, 3.0), lifted @ lifted.T]
    with pm.Model():
        X = pm.Data("X", Xi) if container else Xi
        assert not container or X.dtype.startswith("int")
        for kernel, reference in zip(kernels, references, strict=True):
            (K,) = evaluate(kernel(X))
            np.testing.assert_allclose(K, reference, rtol=1e-12)


def test_an_exact_distance_kernel_survives_pickle_and_deepcopy():
    """``exact_distances`` gives the kernel a class made at run time under its PyMC name, so
    pickle refused it ("it's not the same object as pymc.gp.cov.Matern52")."""
    import copy
    import pickle

    from pymc_vsk.covariance import ExactDistances, exact_distances

    X = 1e6 + inputs(1, 6, seed=13)  # an offset that ruins PyMC's expanded distances
    kernel = exact_distances(pm.gp.cov.Matern52(1, ls=LS))
    expected = ref.loop_kernel(ref.RADIAL["Matern52"], X, X, LS)
    for clone in (pickle.loads(pickle.dumps(kernel)), copy.deepcopy(kernel)):
        assert isinstance(clone, pm.gp.cov.Matern52) and isinstance(clone, ExactDistances)
        (K,) = evaluate(clone(X))
        np.testing.assert_allclose(K, expected, rtol=1e-12, atol=1e-12)


def test_the_negligible_psi_warning_points_at_the_users_line():
    """It pointed at ``full`` inside pymc_vsk (a fixed stacklevel), and from a PyMC GP
    deeper still, never at the line that built the kernel or the model."""
    import warnings

    from pymc_vsk.covariance import NegligibleScalingWarning

    X = inputs(1, 8, seed=14)
    cov = VSK(pm.gp.cov.Matern52(2, ls=100.0), scaling.Jump(0.5, amplitudes=1e-6))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cov(X)
        cov.full(X, X[:3])
        with pm.Model():
            pm.gp.Marginal(cov_func=2.0 * cov).marginal_likelihood("y", X=X, y=X[:, 0], sigma=1)
    found = [w for w in caught if issubclass(w.category, NegligibleScalingWarning)]
    assert len(found) >= 3
    assert {w.filename for w in found} == {__file__}


def test_active_dims_as_a_slice_equal_the_list_of_its_columns():
    """PyMC's ``np.asarray(active_dims, int)`` failed on a slice with "int() argument must be
    ... not 'slice'"."""
    X = inputs(3, 9, seed=15)
    psi = scaling.Disk([0.5, 0.5], 0.3)
    by_slice = VSK(pm.gp.cov.ExpQuad(3, ls=LS), psi, input_dim=3, active_dims=slice(1, 3))
    by_list = VSK(pm.gp.cov.ExpQuad(3, ls=LS), psi, input_dim=3, active_dims=[1, 2])
    linear = LinearVSK(3, psi, active_dims=slice(1, None))
    K1, K2, KL = evaluate(by_slice(X), by_list(X), linear(X))
    np.testing.assert_array_equal(by_slice.active_dims, [1, 2])
    np.testing.assert_allclose(K1, K2, rtol=1e-14)
    Z = ref.lift(X[:, 1:], ref.psi_disk(X[:, 1:]))
    np.testing.assert_allclose(KL, Z @ Z.T, rtol=1e-12)


@pytest.mark.parametrize(
    ("make", "shown"),
    [
        (lambda psi: VSK(pm.gp.cov.Matern32(2, ls=1.0), psi), ""),
        (lambda psi: VSK(pm.gp.cov.Matern32(2, ls=1.0), psi, active_dims=[0]), ""),
        (
            lambda psi: VSK(pm.gp.cov.Matern32(2, ls=1.0), psi, input_dim=3, active_dims=[2]),
            ", input_dim=3, active_dims=[2])",
        ),
        (lambda psi: VSK(pm.gp.cov.Matern32(3, ls=1.0), psi, active_dims=[1, 0]), "[1, 0])"),
        (lambda psi: LinearVSK(2, psi), ""),
        (lambda psi: LinearVSK(3, psi, active_dims=[0, 2]), "), active_dims=[0, 2])"),
    ],
    ids=["vsk-all", "vsk-all-listed", "vsk-one-of-three", "vsk-reordered", "linear", "linear-two"],
)
def test_repr_names_the_columns_a_vsk_acts_on_unless_all(make, shown):
    """Two VSKs on different columns of X had the same repr, also in the messages that
    quote it (a wrong number of columns of X)."""
    psi = scaling.Jump(0.5)
    text = repr(make(psi))
    if shown:
        assert text.endswith(shown)
    else:
        assert "active_dims" not in text and text.endswith(f"{psi!r})")
    assert text.count("input_dim=3") <= 1


def _matern52(r):
    return (1 + np.sqrt(5) * r + 5 * r**2 / 3) * np.exp(-np.sqrt(5) * r)


@pytest.mark.parametrize(("amplitude", "negligible"), [(1.0, False), (1e-5, True)])
def test_psi_is_judged_against_x_where_x_spans_a_small_fraction_of_a_length_scale(
    amplitude, negligible
):
    """With ℓ 2 000 times the span of x (a long-ℓ fit, σ_f large), a unit jump spans 5·10⁻⁴
    length scales, below the 10⁻³ that was the bound whatever x spanned: the warning said the
    VSK was the stationary kernel. But x spans as little, and ψ changes the kernel as much as
    x does (closed form below): ψ is negligible only against x."""
    import warnings

    from pymc_vsk.covariance import NegligibleScalingWarning

    X = np.linspace(0, 1, 8)[:, None]
    ls = 2000.0
    psi = amplitude * (X[:, 0] >= 0.5)
    r_x = np.abs(X - X.T) / ls
    r_vsk = np.sqrt(r_x**2 + ((psi[:, None] - psi[None]) / ls) ** 2)
    by_psi = np.max(np.abs(_matern52(r_vsk) - _matern52(r_x)))
    by_x = np.max(np.abs(1 - _matern52(r_x)))
    assert (by_psi / by_x < 1e-6) == negligible  # ψ's share of the kernel's variation
    cov = VSK(pm.gp.cov.Matern52(2, ls=ls), scaling.Jump(0.5, amplitudes=amplitude))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cov(X).eval()
    found = [w for w in caught if issubclass(w.category, NegligibleScalingWarning)]
    assert bool(found) == negligible
    if negligible:
        assert "of x's range" in str(found[0].message)
