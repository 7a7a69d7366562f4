; corpus-archs: sm_80 sm_90a sm_100a
; Warp-level collectives: shfl.sync (idx/up/down/bfly, with and without the
; predicate result), vote.sync (all/any/uni/ballot), match.sync, redux.sync,
; activemask, bar.warp.sync, lane masks and special registers; a warp-wide
; inclusive scan and an argmax reduction built from them.
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
declare i32 @llvm.nvvm.read.ptx.sreg.warpid()
declare i32 @llvm.nvvm.read.ptx.sreg.nwarpid()
declare i32 @llvm.nvvm.read.ptx.sreg.smid()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.ge()
declare i64 @llvm.nvvm.read.ptx.sreg.clock64()
declare i64 @llvm.nvvm.read.ptx.sreg.globaltimer()
declare i32 @llvm.nvvm.read.ptx.sreg.gridid()
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)
declare float @llvm.nvvm.shfl.sync.up.f32(i32, float, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.up.i32(i32, i32, i32, i32)
declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)
declare { i32, i1 } @llvm.nvvm.shfl.sync.down.i32p(i32, i32, i32, i32)
declare { float, i1 } @llvm.nvvm.shfl.sync.bfly.f32p(i32, float, i32, i32)
declare i1 @llvm.nvvm.vote.all.sync(i32, i1)
declare i1 @llvm.nvvm.vote.any.sync(i32, i1)
declare i1 @llvm.nvvm.vote.uni.sync(i32, i1)
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare i32 @llvm.nvvm.match.any.sync.i32(i32, i32)
declare i32 @llvm.nvvm.match.any.sync.i64(i32, i64)
declare { i32, i1 } @llvm.nvvm.match.all.sync.i32p(i32, i32)
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)
declare i32 @llvm.nvvm.redux.sync.umax(i32, i32)
declare i32 @llvm.nvvm.redux.sync.min(i32, i32)
declare i32 @llvm.nvvm.redux.sync.and(i32, i32)
declare i32 @llvm.nvvm.redux.sync.xor(i32, i32)
declare i32 @llvm.nvvm.activemask()
declare void @llvm.nvvm.bar.warp.sync(i32)
declare i32 @llvm.ctpop.i32(i32)

define ptx_kernel void @warp_scan_and_vote(ptr addrspace(1) noalias %in, ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %meta) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %i = zext i32 %tid to i64
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %i
  %v = load i32, ptr addrspace(1) %p, align 4
  br label %scan

scan:                                             ; Hillis-Steele inclusive scan
  %off = phi i32 [ 1, %entry ], [ %off2, %scan.next ]
  %acc = phi i32 [ %v, %entry ], [ %acc2, %scan.next ]
  %up = call i32 @llvm.nvvm.shfl.sync.up.i32(i32 -1, i32 %acc, i32 %off, i32 0)
  %valid = icmp uge i32 %lane, %off
  %add = add i32 %acc, %up
  %acc2 = select i1 %valid, i32 %add, i32 %acc
  br label %scan.next

scan.next:
  %off2 = shl i32 %off, 1
  %more = icmp ult i32 %off2, 32
  br i1 %more, label %scan, label %after

after:
  %pos = icmp sgt i32 %v, 0
  %all = call i1 @llvm.nvvm.vote.all.sync(i32 -1, i1 %pos)
  %any = call i1 @llvm.nvvm.vote.any.sync(i32 -1, i1 %pos)
  %uni = call i1 @llvm.nvvm.vote.uni.sync(i32 -1, i1 %pos)
  %ballot = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %pos)
  %lt = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()
  %below = and i32 %ballot, %lt
  %rank = call i32 @llvm.ctpop.i32(i32 %below)
  %key = and i32 %v, 255
  %peers = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %wide = sext i32 %v to i64
  %peers64 = call i32 @llvm.nvvm.match.any.sync.i64(i32 -1, i64 %wide)
  %ma = call { i32, i1 } @llvm.nvvm.match.all.sync.i32p(i32 -1, i32 %key)
  %mam = extractvalue { i32, i1 } %ma, 0
  %map = extractvalue { i32, i1 } %ma, 1
  %sum = call i32 @llvm.nvvm.redux.sync.add(i32 %v, i32 -1)
  %umax = call i32 @llvm.nvvm.redux.sync.umax(i32 %v, i32 -1)
  %smin = call i32 @llvm.nvvm.redux.sync.min(i32 %v, i32 -1)
  %rand = call i32 @llvm.nvvm.redux.sync.and(i32 %v, i32 %ballot)
  %rxor = call i32 @llvm.nvvm.redux.sync.xor(i32 %v, i32 -1)
  %act = call i32 @llvm.nvvm.activemask()
  call void @llvm.nvvm.bar.warp.sync(i32 %act)
  %bf = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %acc2, i32 16, i32 31)
  %src = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %acc2, i32 31, i32 31)
  %dp = call { i32, i1 } @llvm.nvvm.shfl.sync.down.i32p(i32 -1, i32 %v, i32 1, i32 31)
  %dpv = extractvalue { i32, i1 } %dp, 0
  %dpp = extractvalue { i32, i1 } %dp, 1
  %dsel = select i1 %dpp, i32 %dpv, i32 0
  %f1 = zext i1 %all to i32
  %f2 = zext i1 %any to i32
  %f3 = zext i1 %uni to i32
  %f4 = zext i1 %map to i32
  %g2 = shl i32 %f2, 1
  %g3 = shl i32 %f3, 2
  %g4 = shl i32 %f4, 3
  %flags = or i32 %f1, %g2
  %flags2 = or i32 %flags, %g3
  %flags3 = or i32 %flags2, %g4
  %po = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i
  store i32 %acc2, ptr addrspace(1) %po, align 4
  %m0 = mul i64 %i, 8
  %pm = getelementptr inbounds i32, ptr addrspace(1) %meta, i64 %m0
  store i32 %rank, ptr addrspace(1) %pm, align 4
  %pm1 = getelementptr inbounds i32, ptr addrspace(1) %pm, i64 1
  %x1 = xor i32 %peers, %peers64
  %x2 = xor i32 %x1, %mam
  store i32 %x2, ptr addrspace(1) %pm1, align 4
  %pm2 = getelementptr inbounds i32, ptr addrspace(1) %pm, i64 2
  store i32 %sum, ptr addrspace(1) %pm2, align 4
  %pm3 = getelementptr inbounds i32, ptr addrspace(1) %pm, i64 3
  %x3 = xor i32 %umax, %smin
  %x4 = xor i32 %x3, %rand
  %x5 = xor i32 %x4, %rxor
  store i32 %x5, ptr addrspace(1) %pm3, align 4
  %pm4 = getelementptr inbounds i32, ptr addrspace(1) %pm, i64 4
  %x6 = add i32 %bf, %src
  %x7 = add i32 %x6, %dsel
  store i32 %x7, ptr addrspace(1) %pm4, align 4
  %pm5 = getelementptr inbounds i32, ptr addrspace(1) %pm, i64 5
  store i32 %flags3, ptr addrspace(1) %pm5, align 4
  ret void
}

; Warp argmax over floats: butterfly reduction carrying (value, index).
define ptx_kernel void @warp_argmax(ptr addrspace(1) noalias %in, ptr addrspace(1) noalias %best) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %tid to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %in, i64 %i
  %v0 = load float, ptr addrspace(1) %p, align 4
  br label %loop

loop:
  %mask = phi i32 [ 16, %entry ], [ %mask.next, %loop ]
  %v = phi float [ %v0, %entry ], [ %v.next, %loop ]
  %idx = phi i32 [ %tid, %entry ], [ %idx.next, %loop ]
  %ov.p = call { float, i1 } @llvm.nvvm.shfl.sync.bfly.f32p(i32 -1, float %v, i32 %mask, i32 31)
  %ov = extractvalue { float, i1 } %ov.p, 0
  %oi = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %idx, i32 %mask, i32 31)
  %gt = fcmp ogt float %ov, %v
  %eq = fcmp oeq float %ov, %v
  %lower = icmp ult i32 %oi, %idx
  %tie = and i1 %eq, %lower
  %take = or i1 %gt, %tie
  %v.next = select i1 %take, float %ov, float %v
  %idx.next = select i1 %take, i32 %oi, i32 %idx
  %mask.next = lshr i32 %mask, 1
  %cont = icmp ne i32 %mask.next, 0
  br i1 %cont, label %loop, label %done

done:
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %first = icmp eq i32 %lane, 0
  br i1 %first, label %write, label %exit

write:
  %warp = lshr i32 %tid, 5
  %w64 = zext i32 %warp to i64
  %pb = getelementptr inbounds { float, i32 }, ptr addrspace(1) %best, i64 %w64
  store float %v.next, ptr addrspace(1) %pb, align 8
  %pbi = getelementptr inbounds { float, i32 }, ptr addrspace(1) %best, i64 %w64, i32 1
  store i32 %idx.next, ptr addrspace(1) %pbi, align 4
  %up = call float @llvm.nvvm.shfl.sync.up.f32(i32 1, float %v.next, i32 0, i32 0)
  %dn = call float @llvm.nvvm.shfl.sync.down.f32(i32 1, float %up, i32 0, i32 31)
  store float %dn, ptr addrspace(1) %p, align 4
  br label %exit

exit:
  ret void
}

define ptx_kernel void @sregs(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.warpid()
  %nw = call i32 @llvm.nvvm.read.ptx.sreg.nwarpid()
  %sm = call i32 @llvm.nvvm.read.ptx.sreg.smid()
  %ge = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.ge()
  %gid = call i32 @llvm.nvvm.read.ptx.sreg.gridid()
  %c0 = call i64 @llvm.nvvm.read.ptx.sreg.clock64()
  %gt = call i64 @llvm.nvvm.read.ptx.sreg.globaltimer()
  %c1 = call i64 @llvm.nvvm.read.ptx.sreg.clock64()
  %dc = sub i64 %c1, %c0
  %a = xor i32 %w, %nw
  %b = xor i32 %a, %sm
  %c = xor i32 %b, %ge
  %d = xor i32 %c, %gid
  %d64 = zext i32 %d to i64
  %e = add i64 %dc, %gt
  %f = xor i64 %e, %d64
  %i = zext i32 %tid to i64
  %po = getelementptr inbounds i64, ptr addrspace(1) %out, i64 %i
  store volatile i64 %f, ptr addrspace(1) %po, align 8
  ret void
}
