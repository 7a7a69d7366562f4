"""The original pyptx's documented API (its docs/api/*.md pages, v0.1.1),
transcribed as facts: one line per name. `name(sig)` is a callable with
that signature, `name = value` a constant, a bare `name` an attribute,
namespace or property that must exist. Names are dotted paths from the
module named by the section header. test_original_api.py checks ours."""

FACTS = """
[pyptx]
kernel(fn=None, *, arch='sm_90a', version=None, in_specs=None, out_specs=None, grid=None, block=(1, 1, 1), cluster=(1, 1, 1), smem=0, raw_params=None, extern_smem=False, reqntid=None, raw_directives=None)
reg
smem
ptx
intrinsic(fn)
Tile(*dims_and_dtype, dtype=None, layout=Layout.ROW, tma_box=None, tma_rank=2, tma_padding=False)
Layout
differentiable_kernel(forward_kernel, backward_kernel, **kwargs)
detect_arch()
detect_arch.cache_info()
detect_arch.cache_clear()

[pyptx.kernel]
TensorSpec(name, shape=None, dtype=None, layout=None)
TensorSpec.tma_desc(self)
TmaDescriptorHandle(tensor)
Kernel(fn, arch='sm_90a', version=None, in_specs=None, out_specs=None, grid=None, block=(1, 1, 1), cluster=(1, 1, 1), smem=0, raw_params=None, extern_smem=False, reqntid=None, raw_directives=None)
Kernel.in_specs
Kernel.out_specs
Kernel.grid
Kernel.block
Kernel.cluster
Kernel.smem
Kernel.template_params
Kernel.arch
Kernel.ptx(self, **kwargs)
Kernel.module(self, **kwargs)
Kernel.sass(self, **kwargs)
Kernel.resources(self, **kwargs)
kernel(fn=None, *, arch='sm_90a', version=None, in_specs=None, out_specs=None, grid=None, block=(1, 1, 1), cluster=(1, 1, 1), smem=0, raw_params=None, extern_smem=False, reqntid=None, raw_directives=None)

[pyptx.reg]
Reg(name, dtype)
Reg.max(self, other)
PipeRef(left, right)
NegPred(reg)
RegArray(base, count, dtype)
RegArray.regs(self)
RegArray.count
RegArray.hw_order(self, *, reverse=False)
RegArray.base
RegArray.dtype
array(dtype, count, name=None)
scalar(dtype, init=None, name=None)
from_(src, dtype)
wgmma_frag(*, m, n, dtype, name=None)
alloc(dtype)
alloc_array(dtype, count)

[pyptx.smem]
SharedAlloc(name, dtype, shape, swizzle, gmma_layout=None, gmma_major=None, byte_offset=0)
SharedSlice(alloc, stage)
SharedSlice.name
MbarrierArray(name, count, byte_offset=0)
MbarrierRef(array, idx)
MbarrierRef.name
MbarrierRef.byte_offset
base(name=None)
load(dtype, address)
store(dtype, address, value)
alloc(dtype, shape, swizzle=None, align=None, name=None)
wgmma_tile(dtype, shape, major='K', *, align=None, name=None)
alloc_with_layout(dtype, shape, swizzle=None, align=None, name=None, *, gmma_layout=None, gmma_major=None)
mbarrier(count, name=None)
apply_swizzle(logical_offset, swizzle)

[pyptx.ptx]
special
special.tid
special.ntid
special.ctaid
special.nctaid
special.laneid()
special.warpid()
special.clock()
sreg(name)
loc(file_idx, line, col=0)
file_(file_idx, filename)
pragma(value)
var(state_space, dtype, name, *, size=None, align=None, linking=None)
ctaid_x()
ctaid_y()
global_ptrs(*params)
warp.reduce_sum(val, *, width=32)
warp.reduce_max(val, *, width=32)
warp.reduce_min(val, *, width=32)
if_(pred_reg)
else_()
scope()
loop(label_name, *, pred=None)
PipelineState(n_stages, *, cursor=None, phase=None)
PipelineState.advance(self)
pipeline(n_stages, *, cursor=None, phase=None)
expr()
range_(start, stop, step=1)
raw(text)
wgmma.mma_async(*, shape, dtype_d, dtype_a, dtype_b, d, a, b, scale_d=False, scale_a=1, scale_b=1, trans_a=0, trans_b=0, a_k_offset=0, b_k_offset=0, pred=None)
wgmma.fence(*, pred=None)
wgmma.commit_group(*, pred=None)
wgmma.wait_group(n, *, pred=None)
wgmma.auto_descriptor(smem_base, *, dtype, shape, major)
wgmma.make_descriptor(smem_base, *, leading_byte_offset, stride_byte_offset, swizzle=0, base_offset=0, addr_byte_offset=0)
wgmma.masked_descriptor(smem_addr, *, byte_offset=0, mask=262016, const_bits=4611686293305360384)
wgmma.SWIZZLE_NONE = 0
wgmma.SWIZZLE_128B = 1
wgmma.SWIZZLE_64B = 2
wgmma.SWIZZLE_32B = 3
wgmma.MASKED_DESC_B128 = 4611686293305360384
mma.sync(*, shape, dtype_d, dtype_a, dtype_b, dtype_c, d, a, b, c, a_layout='row', b_layout='col', pred=None)
cp.async_
cp.async_bulk
mbarrier.init(mbar, count, *, pred=None)
mbarrier.inval(mbar, *, pred=None)
mbarrier.arrive(mbar, *, pred=None)
mbarrier.arrive_expect_tx(mbar, tx_count, *, pred=None)
mbarrier.expect_tx(mbar, tx_count, *, pred=None)
mbarrier.try_wait(mbar, phase, *, parity=True, pred=None)
mbarrier.wait(mbar, phase, *, pred=None)
mbarrier.array(base, byte_offset, count)
fence.proxy_async(*, pred=None)
fence.proxy_async_shared_cta(*, pred=None)
fence.proxy_async_generic_acquire_shared_cluster(*, pred=None)
fence.mbarrier_init(*, pred=None)
stmatrix(*, smem, regs, layout='x4', trans=False, shape='m8n8', pred=None)
stmatrix_x4_trans_f32_bf16(*, frag, smem_base, lane, row_stride, tmp_bf16=None, tmp_pack=None)
ldmatrix(*, dst, src, layout='x4', trans=False, pred=None)
bar.sync(n=0, count=None, *, pred=None)
NamedBarrier(barrier_id, count=None)
NamedBarrier.sync(self, *, pred=None)
named_barrier(barrier_id, *, count=None)
setmaxnreg(count, *, inc=True, pred=None)
kloop(total, *, unroll, body, loop_label='kloop')
selp(dtype, dst, true_val, false_val, pred_reg, *, pred=None)
tma.load_3d(dst, src, row=None, col=None, mbar=None, coords=None, *, pred=None)
tma.load_3d_multicast(dst, src, row=None, col=None, mbar=None, mask=None, coords=None, *, issuer=None, pred=None)
tma.store_3d(dst, src, row=None, col=None, coords=None, *, pred=None)
inst
pipe(src)
mov(dtype, dst, src, *, pred=None)
add(dtype, dst, a, b, *, pred=None)
ret(*, pred=None)
bra(label, *, pred=None)
label(name)
addr(base, offset=None)
param(dtype, name, dst=None)
tcgen05.alloc(tmem_addr, ncols, *, cta_group=1, pred=None)
tcgen05.dealloc(taddr, ncols, *, cta_group=1, pred=None)
tcgen05.relinquish_alloc_permit(*, cta_group=1, pred=None)
tcgen05.mma(d_tmem, a_desc, b_desc, idesc, *, cta_group=1, kind='f16', enable_input_d=True, scale_d=None, sparse=False, ashift=False, collector_a=None, a_is_tmem=False, sparse_metadata=None, pred_operand=None, scale_c=None, pred=None)
tcgen05.fence_before_thread_sync(*, pred=None)
tcgen05.fence_after_thread_sync(*, pred=None)
tcgen05.commit(mbar, *, cta_group=1, multicast=False, multicast_mask=None, space='cluster', pred=None)
tcgen05.wait_ld(*, pred=None)
tcgen05.wait_st(*, pred=None)
tcgen05.ld(dst_regs, taddr, *, shape='16x128b', count=1, dtype='b32', pack=False, pred=None)
tcgen05.st(taddr, src_regs, *, shape='16x128b', count=1, dtype='b32', unpack=False, pred=None)
tcgen05.cp(taddr, src, *, cta_group=1, size='128x256b', src_is_addr=None, pred=None)
tcgen05.shift(taddr, *, cta_group=1, pred=None)
tcgen05.make_instr_desc_f16bf16_f32(*, m=128, n=256, ab_dtype='bf16', a_major='K', b_major='K', scale_a=1, scale_b=1, saturate=False, sparse=False, max_shift=0)
tcgen05.descriptor(smem_addr, *, byte_offset=0, stride_bytes, leading_bytes=16, swizzle='128B', version=1, base_offset=0, lbo_mode=0)
tcgen05.masked_descriptor(smem_addr, *, byte_offset=0, mask=262128, const_bits=4611756662049538048)
tcgen05.BLACKWELL_MASKED_DESC_B128 = 4611756662049538048
setmaxnreg_inc(reg_count, *, pred=None)
setmaxnreg_dec(reg_count, *, pred=None)
elect_sync(dst, pred_out, membermask)
cluster.arrive(*, aligned=False, pred=None)
cluster.wait(*, aligned=False, pred=None)
cluster.sync(*, aligned=False, pred=None)
cluster.rank(cta_rank)
cluster.map_shared_u32(bar_addr, cta_id, *, pred=None)
cluster.arrive_multicast(bar_addr, mask, count=1, *, pred=None)
cluster.arrive_remote(bar_addr, cta_id, count=1, *, pred=None)
cvta.param(src, dst=None)
cvta.to_global(src, dst=None)
sub(dtype, dst, a, b, *, pred=None)
mul(dtype, dst, a, b, *, mode=None, pred=None)
mad(*args, mode='lo', pred=None)
shl(dtype, dst, a, b, *, pred=None)
shr(dtype, dst, a, b, *, pred=None)
setp(cmp_op, dtype, pred_out, a, b, *, pred_negate=None)
cvt(dst_type, src_type, dst, src, *, rounding=None, ftz=False, sat=False, pred=None)
ld(dtype, dst, addr, *, space='global', cache=None, pred=None)
st(dtype, addr, src, *, space='global', cache=None, pred=None)
and_(dtype, dst, a, b, *, pred=None)
or_(dtype, dst, a, b, *, pred=None)
xor_(dtype, dst, a, b, *, pred=None)
not_(dtype, dst, src, *, pred=None)
TYPED_WRAPPER_CODEGEN

[pyptx.types]
PtxType(name, bits)
PtxType.ptx
b8
b16
b32
b64
b128
u8
u16
u32
u64
s8
s16
s32
s64
f16
f16x2
bf16
bf16x2
tf32
f32
f64
e4m3
e5m2
pred
from_name(name)

[pyptx.specs]
Layout.ROW
Layout.COL
Layout.TMA_128B
Layout.TMA_64B
Layout.TMA_32B
Layout.INTERLEAVED
Dim
Tile(*dims_and_dtype, dtype=None, layout=Layout.ROW, tma_box=None, tma_rank=2, tma_padding=False)
Tile.rank
Tile.symbolic_dims
Tile.resolve_shape(self, env)
Tile.matches(self, array_shape, array_dtype_name)
Tile.extract_env(self, array_shape)
Tile.wgmma_a(m, k, dtype, *, tile_m=None, tile_k=None)
Tile.wgmma_b(k, n, dtype, *, tile_k=None, tile_n=None)
unify_envs(envs)

[pyptx.wgmma_layout]
LayoutType.INTERLEAVE
LayoutType.B128
LayoutType.B64
LayoutType.B32
Major.K
Major.MN
GmmaLayout(layout_type, leading_byte_offset, stride_byte_offset, tma_swizzle, smem_swizzle)
GmmaLayout.swizzle_code
pick_gmma_layout(*, elem_bytes, m_or_n, k, major)
layout_for_a(*, dtype, m, k)
layout_for_b(*, dtype, k, n)

[pyptx.cache]
DEFAULT_CACHE_DIR
CacheKey(fn_id, template_kwargs, input_shapes, arch)
CacheKey.hash(self)
CacheEntry(key, ptx_source, cubin_bytes, metadata=FACTORY)
CubinCache(cache_dir=None, enable_disk=True)
CubinCache.get(self, key)
CubinCache.put(self, entry)
CubinCache.clear(self, *, disk=False)
get_global_cache()
set_global_cache(cache)

[pyptx.debugkit]
BEACON_MAGIC = 48812
SLOT_WORDS = 8
DEFAULT_TIMEOUT_TRIES = 3000000
WAITMAP_MAX_SITES = 16
DebugKit(enabled=False, timeout_tries=3000000)
DebugKit.attach(self, dbg_ptr, slot_reg)
DebugKit.wait(self, mbar, phase, *, site, extra=0)
DebugKit.stamp(self)
DebugKit.accumulate(self, name, t0)
DebugKit.flush(self)
DebugKit.decode(self, dbg_tensor)
n_slot_words(n_slots)
WaitMap()
WaitMap.site_names(self)
WaitMap.attach(self, dbg_ptr, tid_reg)
WaitMap.active(self)
WaitMap.flush(self, pred=None)
WaitMap.decode(self, dbg_tensor, n_threads=512, roles=None)

[pyptx.jax_support]
CubinRecord(handle, ptx_source, kernel_name, smem_bytes=0, grid=(1, 1, 1), block=(1, 1, 1), cu_function=None, module=None, cubin_bytes=None)
CubinRegistry()
CubinRegistry.register(self, ptx_source, kernel_name, cubin_bytes=None, smem_bytes=0, grid=(1, 1, 1), block=(1, 1, 1), cu_function=None, module=None)
CubinRegistry.get(self, handle)
CubinRegistry.clear(self)
get_cubin_registry()
shim_is_available()
shim_load_error()
compile_ptx_to_cubin(ptx_source, arch, kernel_name='', dynamic_smem_bytes=0)
register_launch_config(handle, cu_function, grid, block, cluster=(1, 1, 1), smem_bytes=0)
add_scalar_param_to_shim(handle, *, value_bits, size_bytes)
synthesize_tma_descriptor(shape, dtype, layout, box_shape=None, placeholder_ptr=0)
synthesize_tma_descriptor_3d(height, width, dtype, box_major, box_minor, *, swizzle_128b=True, padding=False, placeholder_ptr=0)
add_tma_spec_to_shim(handle, xla_arg_index, host_blob_ptr, device_blob_ptr)
set_mock_ffi_callback(callback)
ensure_ffi_registered()
call_kernel_via_ffi(*inputs, cubin_handle, out_specs, out_shape_env, grid, block, cluster=(1, 1, 1), smem_bytes=0)

[pyptx.torch_support]
is_torch_tensor(obj)
any_torch_tensors(inputs)
call_kernel_via_torch(*inputs, cubin_handle, out_specs, out_shape_env, grid, block, cluster=(1, 1, 1), smem_bytes=0)
extract_input_shapes(inputs)
get_or_register_torch_op(cubin_handle, out_specs, out_shape_env, grid, block, cluster, smem_bytes)
call_kernel_via_torch_compile(*inputs, cubin_handle, out_specs, out_shape_env, grid, block, cluster=(1, 1, 1), smem_bytes=0)
differentiable_kernel(forward_kernel, backward_kernel, *, save_for_backward=None, num_grad_inputs=None)
"""
