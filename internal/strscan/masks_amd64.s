#include "textflag.h"

DATA quote32<>+0(SB)/8, $0x2222222222222222
DATA quote32<>+8(SB)/8, $0x2222222222222222
DATA quote32<>+16(SB)/8, $0x2222222222222222
DATA quote32<>+24(SB)/8, $0x2222222222222222
GLOBL quote32<>(SB), RODATA|NOPTR, $32

DATA bslash32<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA bslash32<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA bslash32<>+16(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA bslash32<>+24(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL bslash32<>(SB), RODATA|NOPTR, $32

DATA space32<>+0(SB)/8, $0x2020202020202020
DATA space32<>+8(SB)/8, $0x2020202020202020
DATA space32<>+16(SB)/8, $0x2020202020202020
DATA space32<>+24(SB)/8, $0x2020202020202020
GLOBL space32<>(SB), RODATA|NOPTR, $32

DATA slash32<>+0(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA slash32<>+8(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA slash32<>+16(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA slash32<>+24(SB)/8, $0x2f2f2f2f2f2f2f2f
GLOBL slash32<>(SB), RODATA|NOPTR, $32

DATA b32<>+0(SB)/8, $0x6262626262626262
DATA b32<>+8(SB)/8, $0x6262626262626262
DATA b32<>+16(SB)/8, $0x6262626262626262
DATA b32<>+24(SB)/8, $0x6262626262626262
GLOBL b32<>(SB), RODATA|NOPTR, $32

DATA f32<>+0(SB)/8, $0x6666666666666666
DATA f32<>+8(SB)/8, $0x6666666666666666
DATA f32<>+16(SB)/8, $0x6666666666666666
DATA f32<>+24(SB)/8, $0x6666666666666666
GLOBL f32<>(SB), RODATA|NOPTR, $32

DATA n32<>+0(SB)/8, $0x6e6e6e6e6e6e6e6e
DATA n32<>+8(SB)/8, $0x6e6e6e6e6e6e6e6e
DATA n32<>+16(SB)/8, $0x6e6e6e6e6e6e6e6e
DATA n32<>+24(SB)/8, $0x6e6e6e6e6e6e6e6e
GLOBL n32<>(SB), RODATA|NOPTR, $32

DATA r32<>+0(SB)/8, $0x7272727272727272
DATA r32<>+8(SB)/8, $0x7272727272727272
DATA r32<>+16(SB)/8, $0x7272727272727272
DATA r32<>+24(SB)/8, $0x7272727272727272
GLOBL r32<>(SB), RODATA|NOPTR, $32

DATA t32<>+0(SB)/8, $0x7474747474747474
DATA t32<>+8(SB)/8, $0x7474747474747474
DATA t32<>+16(SB)/8, $0x7474747474747474
DATA t32<>+24(SB)/8, $0x7474747474747474
GLOBL t32<>(SB), RODATA|NOPTR, $32

DATA u32<>+0(SB)/8, $0x7575757575757575
DATA u32<>+8(SB)/8, $0x7575757575757575
DATA u32<>+16(SB)/8, $0x7575757575757575
DATA u32<>+24(SB)/8, $0x7575757575757575
GLOBL u32<>(SB), RODATA|NOPTR, $32

// func masksAVX2(p *byte) (quote, bslash, ctl, high, letter, u uint64)
//
// The 64 bytes at p: bit k of each mask is set when byte k is a quote, a
// backslash, below 0x20, above 0x7f, one of / b f n r t, or u. letter
// and u are left 0 when the block has no backslash.
TEXT ·masksAVX2(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), SI
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1

	VPCMPEQB  quote32<>(SB), Y0, Y2
	VPCMPEQB  quote32<>(SB), Y1, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, quote+8(FP)

	VPCMPEQB  bslash32<>(SB), Y0, Y2
	VPCMPEQB  bslash32<>(SB), Y1, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, bslash+16(FP)

	// 0x20 > x, signed: below 0x20 or above 0x7f; the sign bits are the
	// bytes above 0x7f.
	VMOVDQU   space32<>(SB), Y4
	VPCMPGTB  Y0, Y4, Y2
	VPCMPGTB  Y1, Y4, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	VPMOVMSKB Y0, CX
	VPMOVMSKB Y1, DX
	SHLQ      $32, DX
	ORQ       DX, CX
	MOVQ      CX, high+32(FP)
	ANDNQ     AX, CX, AX // low &^ high: ANDN computes ^CX & AX
	MOVQ      AX, ctl+24(FP)

	MOVQ $0, letter+40(FP)
	MOVQ $0, u+48(FP)
	MOVQ bslash+16(FP), AX
	TESTQ AX, AX
	JZ   done

#define LETTER(c) \
	VPCMPEQB c<>(SB), Y0, Y5; \
	VPOR     Y5, Y2, Y2; \
	VPCMPEQB c<>(SB), Y1, Y5; \
	VPOR     Y5, Y3, Y3

	VPCMPEQB slash32<>(SB), Y0, Y2
	VPCMPEQB slash32<>(SB), Y1, Y3
	LETTER(b32)
	LETTER(f32)
	LETTER(n32)
	LETTER(r32)
	LETTER(t32)
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, letter+40(FP)

	VPCMPEQB  u32<>(SB), Y0, Y2
	VPCMPEQB  u32<>(SB), Y1, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, u+48(FP)

done:
	VZEROUPPER
	RET

// func quotesAVX2(p *byte) (quote, bslash uint64)
//
// The quote and backslash masks of masksAVX2 alone.
TEXT ·quotesAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1

	VPCMPEQB  quote32<>(SB), Y0, Y2
	VPCMPEQB  quote32<>(SB), Y1, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, quote+8(FP)

	VPCMPEQB  bslash32<>(SB), Y0, Y2
	VPCMPEQB  bslash32<>(SB), Y1, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, bslash+16(FP)
	VZEROUPPER
	RET
