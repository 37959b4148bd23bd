#!/usr/bin/python3
"""Writes a synthetic PyTorch profiler trace (Kineto Chrome-trace JSON) for
`roofplan import trace`'s tests and benchmark: LAYERS MoE layers, each run
forward and backward, with the kernel names of DeepSeek's H800 trace
(github.com/deepseek-ai/profile-data) and per-layer kernel times of the
order that trace shows (facts/deepseek-v3-h800-trace.md, divided by its 4
layers), a CPU operator and a runtime call per kernel as Kineto records
them, and the EP kernels on their own stream. Not a measurement: a shape.

usage: synth-trace.py [--layers N] [--mb SIZE] [--gzip] OUT.json
  --mb SIZE: repeat layers until the file holds about SIZE MB
"""
import argparse
import gzip
import sys

# (name, kernels per layer forward, per backward, µs each, stream)
KERNELS = [
    ("void flash::compute_attn_ws<Flash_fwd_kernel_traits<192, 128, 128, 12, 2, false, 1, cutlass::bfloat16_t, 128>, true>(Params)", 1, 0, 1237, 7),
    ("void cutlass::device_kernel<flash::FlashAttnBwd<flash::CollectiveMainloopBwd<2, 192>>>(Params)", 0, 1, 3779, 7),
    ("void cutlass::device_kernel<flash::FlashAttnBwdPreprocess<cute::tuple<cute::C<64>, cute::C<192>>>>(Params)", 0, 1, 256, 7),
    ("void cutlass::device_kernel<flash::FlashAttnBwdPostprocessConvertdQ<cute::tuple<cute::C<64>, cute::C<192>>>>(Params)", 0, 1, 219, 7),
    ("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel>(dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel::Params)", 2, 2, 1433, 7),
    ("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>(dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel::Params)", 8, 8, 294, 7),
    ("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_dptp128c_acc::GemmKernel>(dpsk::grouped_gemm::cuda::fp8_dptp128c_acc::GemmKernel::Params)", 0, 15, 546, 7),
    ("void cuda::per_token_cast_to_fp8_with_channels<__nv_bfloat16, 128, false, 128, false>(__nv_bfloat16 const*, int, unsigned char*, float*, int, int)", 10, 10, 78, 7),
    ("void cuda::per_channel_cast_and_transpose<256, 128, false, false, false, false, false>(void const*, float const*, unsigned char*, float*, int, int)", 0, 10, 47, 7),
    ("void layer_norm::ln_fwd_kernel<layer_norm::Kernel_traits<__nv_bfloat16, __nv_bfloat16, float, unsigned int, 7168u, 1u, 1u, 4u, 16u>>(FwdParams)", 4, 4, 115, 7),
    ("void layer_norm::ln_bwd_kernel<layer_norm::Kernel_traits<__nv_bfloat16, __nv_bfloat16, float, unsigned int, 7168u, 1u, 1u, 8u, 8u>>(BwdParams)", 0, 2, 147, 7),
    ("void cuda::swiglu_forward_backward_with_weight_impl<__nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16 const*, int const*, float const*, int, int)", 0, 1, 332, 7),
    ("void cuda::swiglu_forward_with_weight_and_per_token_cast_to_fp8_with_channels_impl<__nv_bfloat16, true, false, 128>(unsigned char*, int, int)", 1, 0, 139, 7),
    ("rotary_kernel", 3, 3, 63, 7),
    ("_copy_tensor_kernel", 2, 2, 98, 7),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)", 2, 2, 30, 7),
    ("void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(at::cuda::detail::TensorInfo<float, unsigned int>, unsigned int)", 1, 1, 70, 7),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", 1, 2, 45, 7),
    ("void dpsk::ep::internode::dispatch<false, 8, true, 8>(int4*, float*, long*, float*, dpsk::ep::internode::SourceMeta*)", 1, 1, 3875, 27),
    ("void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*, float*, bool const*, int4 const*)", 1, 1, 6181, 27),
    ("void dpsk::ep::internode::cached_notify<false>(int, int, int, int, int*, int, int, int const*, int const*, int*)", 2, 1, 1967, 27),
]


def events(layers):
    """Yields the JSON text of each event, in time order per stream."""
    ts = {7: 1740461679471000.0, 27: 1740461679471000.0}
    ext = 0
    for layer in range(layers):
        for backward in (False, True):
            for name, nf, nb, dur, stream in KERNELS:
                for _ in range(nb if backward else nf):
                    ext += 1
                    cpu = ts[7] - 5
                    yield ('{"ph": "X", "cat": "cpu_op", "name": "aten::%s", '
                           '"pid": 1, "tid": 1, "ts": %.3f, "dur": 4, "args": '
                           '{"External id": %d, "Sequence number": %d, '
                           '"Fwd thread id": 0, "Record function id": 0, '
                           '"Ev Idx": %d}}' % ("mm" if "gemm" in name else
                                                "copy_", cpu, ext, ext, ext))
                    yield ('{"ph": "X", "cat": "cuda_runtime", "name": '
                           '"cudaLaunchKernel", "pid": 1, "tid": 1, "ts": '
                           '%.3f, "dur": 3, "args": {"External id": %d, '
                           '"cbid": 211, "correlation": %d}}' % (cpu + 1, ext, ext))
                    yield ('{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, '
                           '"tid": %d, "ts": %.3f, "dur": %d, "args": {"External id": '
                           '%d, "queued": 0, "device": 0, "context": 1, "stream": %d, '
                           '"correlation": %d, "registers per thread": 128, '
                           '"shared memory": 0, "grid": [112, 1, 1], "block": '
                           '[384, 1, 1], "est. achieved occupancy %%": 6}}'
                           % (name, stream, ts[stream], dur, ext, stream, ext))
                    ts[stream] += dur + 2
            # the EP stream runs beside compute, not after it
            ts[27] = max(ts[27], ts[7] - 20000)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--mb", type=float, default=0)
    ap.add_argument("--gzip", action="store_true")
    ap.add_argument("out")
    a = ap.parse_args()
    per_layer = sum(len(e) + 2 for e in events(1))
    layers = a.layers
    if a.mb > 0:
        layers = max(1, int(a.mb * 1e6 / per_layer))
    opener = gzip.open if a.gzip else open
    with opener(a.out, "wt") as f:
        f.write('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": '
                '"NVIDIA H800", "numSms": 132}], "traceEvents": [\n')
        first = True
        for e in events(layers):
            f.write(e if first else ",\n" + e)
            first = False
        f.write('\n], "traceName": "synthetic"}\n')
    print("%s: %d layers" % (a.out, layers), file=sys.stderr)


if __name__ == "__main__":
    main()
