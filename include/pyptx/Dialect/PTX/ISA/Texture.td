//===- Texture.td - texture and surface instructions --------*- tablegen -*-===//
//
// tex, tld4, txq, istypep, suld, sust, sured, suq. The memory operand
// (`[tex, {coords}]`, `[tex, sampler, {coords}]`, `[surf, {coords}]`) is an
// "addr" whose inside is not checked.
//
// tex/tld4 may write `d|p` (p: whether the texels were resident; PTX ISA 7.1,
// sm_60); the destination is described as the braced vector `d` only.
//
// Modifier order (ISABase.td, Head and Chains), as ptxas takes it: after the
// operation's words (`tex.base`, `tex.level`, `tex.grad`, `txq.level`,
// `suld.b`, `sust.p`, `sured.b`, ...) any order; the destination's type comes
// before the coordinates' (`tex.1d.v4.f32.s32`).
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_TEXTURE_TD
#define PYPTX_DIALECT_PTX_ISA_TEXTURE_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

defvar TEX_Geoms = ["1d", "2d", "3d", "a1d", "a2d", "cube", "acube", "2dms",
                    "a2dms"];
defvar TEX_GeomReqs = [ValueReq<"a1d", 23>, ValueReq<"a2d", 23>,
                       ValueReq<"cube", 23>, ValueReq<"acube", 30, 20>,
                       ValueReq<"2dms", 50, 30>, ValueReq<"a2dms", 50, 30>,
                       ValueReq<"f16", 42, 53>];
defvar TEX_Clamp = Group<"clamp", ["trap", "clamp", "zero"]>;
defvar TEX_SuGeoms = ["1d", "2d", "3d", "a1d", "a2d"];

let Family = "Texture and surface", Chains = ["dtype ctype"] in {

//===----------------------------------------------------------------------===//
// tex, tld4
//===----------------------------------------------------------------------===//

// Operands after the memory operand: the optional offset vector e and depth
// compare value f.
defvar TEX_Opt = [AnyOperand<"?">, AnyOperand<"?">];
foreach f = [["", "v4", "dtype"], ["_F16X2", "v2", "f16x2"]] in {
defvar n = !if(!eq(f[1], "v4"), 4, 2);
defvar dtypes = !if(!eq(f[1], "v4"), ["u32", "s32", "f16", "f32"], ["f16x2"]);
defvar ptx = !if(!eq(f[1], "v4"), 10, 42);
let MinPTX = ptx, MinSM = !if(!eq(f[1], "v4"), 20, 53),
    ValueReqs = TEX_GeomReqs in {
let Head = 1 in {
def TEX_TEX # f[0]
    : Inst<"tex", [Opt<"mip", ["base"]>, Group<"geom", TEX_Geoms>,
                   Fixed<f[1]>, Group<"dtype", dtypes>,
                   Group<"ctype", ["s32", "f32"]>],
           !listconcat([Vec<"$dtype", n>, Addr<>], TEX_Opt)> {
  let Summary = "d = the texels of texture a at coordinates c";
}
def TEX_TEX_LEVEL # f[0]
    : Inst<"tex", [Fixed<"level">, Group<"geom", TEX_Geoms>,
                   Fixed<f[1]>, Group<"dtype", dtypes>,
                   Group<"ctype", ["s32", "f32"]>],
           !listconcat([Vec<"$dtype", n>, Addr<>, RegImm<"f32">], TEX_Opt)> {
  let Summary = "d = the texels of texture a at coordinates c, mipmap level lod";
  let MinPTX = !if(!gt(ptx, 26), ptx, 26); let MinSM = 30;
}
def TEX_TEX_GRAD # f[0]
    : Inst<"tex", [Fixed<"grad">, Group<"geom", TEX_Geoms>,
                   Fixed<f[1]>, Group<"dtype", dtypes>,
                   Group<"ctype", ["s32", "f32"]>],
           !listconcat([Vec<"$dtype", n>, Addr<>, Vec<"f32">, Vec<"f32">],
                       TEX_Opt)> {
  let Summary = "d = the texels of texture a at coordinates c, with gradients";
  let MinPTX = !if(!gt(ptx, 26), ptx, 26); let MinSM = 30;
}
}
}
}
def TEX_TLD4 : Inst<"tld4", [Group<"comp", ["r", "g", "b", "a"]>,
                             Group<"geom", ["2d", "a2d", "cube", "acube"]>,
                             Fixed<"v4">, Group<"dtype", ["u32", "s32", "f32"]>,
                             Group<"ctype", ["f32"]>],
                    !listconcat([Vec<"$dtype", 4>, Addr<>], TEX_Opt)> {
  let Summary = "d = one component of the four texels around coordinates c";
  let MinPTX = 22; let MinSM = 20;
  let ValueReqs = [ValueReq<"a2d", 43, 30>, ValueReq<"cube", 43, 30>,
                   ValueReq<"acube", 43, 30>];
}

//===----------------------------------------------------------------------===//
// txq, istypep
//===----------------------------------------------------------------------===//

def TEX_TXQ : Inst<"txq", [Group<"query", ["width", "height", "depth",
                                           "channel_data_type", "channel_order",
                                           "normalized_coords", "array_size",
                                           "num_mipmap_levels", "num_samples",
                                           "filter_mode", "addr_mode_0",
                                           "addr_mode_1", "addr_mode_2",
                                           "force_unnormalized_coords"]>,
                           Fixed<"b32">],
                   [Reg<"b32">, Addr<>]> {
  let Summary = "d = an attribute of texture or sampler a";
  let MinPTX = 15; let MinSM = 20;
  let ValueReqs = [ValueReq<"array_size", 23>, ValueReq<"num_mipmap_levels", 31>,
                   ValueReq<"num_samples", 31>];
}
let Head = 1 in
def TEX_TXQ_LEVEL : Inst<"txq", [Fixed<"level">,
                                 Group<"query", ["width", "height", "depth"]>,
                                 Fixed<"b32">],
                         [Reg<"b32">, Addr<>, RegImm<"s32">]> {
  let Summary = "d = the size of mipmap level lod of texture a";
  let MinPTX = 31; let MinSM = 30;
}
def TEX_ISTYPEP : Inst<"istypep", [Group<"type", ["texref", "samplerref",
                                                  "surfref"]>],
                       [Reg<"pred">, Reg<"">]> {
  let Summary = "p = whether the 64-bit handle a is of the opaque type";
  let MinPTX = 40; let MinSM = 30;
}

//===----------------------------------------------------------------------===//
// Surfaces: suld, sust, sured, suq
//===----------------------------------------------------------------------===//

// The data register may be wider than the type, as for ld/st (ptxas takes a
// .b16 register for .b8 and a .b64 one for .b32, but not a .b16 one for .b32).
let RelaxedTypes = 1, Head = 1 in {
def TEX_SULD_B : Inst<"suld", [Fixed<"b">, Group<"geom", TEX_SuGeoms>,
                               Opt<"cop", ["ca", "cg", "cs", "cv"]>,
                               Opt<"vec", ["v2", "v4"]>,
                               Group<"dtype", ["b8", "b16", "b32", "b64"]>,
                               TEX_Clamp],
                      [Data<"$dtype">, Addr<>]> {
  let Summary = "d = the unformatted data of surface a at coordinates b";
  let MinPTX = 15; let MinSM = 20;
  let ValueReqs = [ValueReq<"a1d", 30>, ValueReq<"a2d", 30>];
}
def TEX_SUST_B : Inst<"sust", [Fixed<"b">, Group<"geom", TEX_SuGeoms>,
                               Opt<"cop", ["wb", "cg", "cs", "wt"]>,
                               Opt<"vec", ["v2", "v4"]>,
                               Group<"dtype", ["b8", "b16", "b32", "b64"]>,
                               TEX_Clamp],
                      [Addr<>, Data<"$dtype">]> {
  let Summary = "store c, unformatted, to surface a at coordinates b";
  let MinPTX = 15; let MinSM = 20;
  let ValueReqs = [ValueReq<"a1d", 30>, ValueReq<"a2d", 30>];
}
def TEX_SUST_P : Inst<"sust", [Fixed<"p">, Group<"geom", ["1d", "2d", "3d"]>,
                               Opt<"vec", ["v2", "v4"]>, Group<"dtype", ["b32"]>,
                               TEX_Clamp],
                      [Addr<>, Data<"$dtype">]> {
  let Summary = "store c, formatted, to surface a at coordinates b";
  let MinPTX = 15; let MinSM = 20;
}
}
let Head = 1 in {
def TEX_SURED_B : Inst<"sured", [Fixed<"b">,
                                 Group<"op", ["add", "min", "max", "and", "or"]>,
                                 Group<"geom", ["1d", "2d", "3d"]>,
                                 Group<"ctype", ["u32", "u64", "s32", "b32", "s64"]>,
                                 TEX_Clamp],
                        [Addr<>, RegImm<"$ctype">]> {
  let Summary = "reduce c into surface a at byte coordinates b";
  let MinPTX = 20; let MinSM = 20;
}
def TEX_SURED_P : Inst<"sured", [Fixed<"p">,
                                 Group<"op", ["add", "min", "max", "and", "or"]>,
                                 Group<"geom", ["1d", "2d", "3d"]>,
                                 Group<"ctype", ["b32", "b64"]>, TEX_Clamp],
                        [Addr<>, RegImm<"$ctype">]> {
  let Summary = "reduce c into surface a at sample coordinates b";
  let MinPTX = 20; let MinSM = 20;
}
}
def TEX_SUQ : Inst<"suq", [Group<"query", ["width", "height", "depth",
                                           "channel_data_type", "channel_order",
                                           "array_size", "memory_layout"]>,
                           Fixed<"b32">],
                   [Reg<"b32">, Addr<>]> {
  let Summary = "d = an attribute of surface a";
  let MinPTX = 15; let MinSM = 20;
  let ValueReqs = [ValueReq<"array_size", 31>, ValueReq<"memory_layout", 31>];
}

} // Family = "Texture and surface"

#endif // PYPTX_DIALECT_PTX_ISA_TEXTURE_TD
