#include "textflag.h"

// Constant vectors: one byte repeated 32 times.
#define VEC(name, b) \
	DATA name<>+0(SB)/8, $(b*0x0101010101010101); \
	DATA name<>+8(SB)/8, $(b*0x0101010101010101); \
	DATA name<>+16(SB)/8, $(b*0x0101010101010101); \
	DATA name<>+24(SB)/8, $(b*0x0101010101010101); \
	GLOBL name<>(SB), RODATA|NOPTR, $32

VEC(quote32, 0x22)
VEC(bslash32, 0x5c)
VEC(space32, 0x20)
VEC(slash32, 0x2f)
VEC(b32, 0x62)
VEC(f32, 0x66)
VEC(n32, 0x6e)
VEC(r32, 0x72)
VEC(t32, 0x74)
VEC(u32, 0x75)

// MASK64 gathers the top bits of Y2 (bytes 0-31) and Y3 (bytes 32-63)
// into AX, bit k for byte k.
#define MASK64 \
	VPMOVMSKB Y2, AX; \
	VPMOVMSKB Y3, BX; \
	SHLQ      $32, BX; \
	ORQ       BX, AX

// CMPEQ sets Y2:Y3 to the bytes of Y0:Y1 equal to the byte of vector c.
#define CMPEQ(c) \
	VPCMPEQB c<>(SB), Y0, Y2; \
	VPCMPEQB c<>(SB), Y1, Y3

// EQ64 is MASK64 of CMPEQ(c).
#define EQ64(c) \
	CMPEQ(c); \
	MASK64

// OREQ adds the bytes of Y0:Y1 equal to the byte of vector c to Y2:Y3.
#define OREQ(c) \
	VPCMPEQB c<>(SB), Y0, Y5; \
	VPOR     Y5, Y2, Y2; \
	VPCMPEQB c<>(SB), Y1, Y5; \
	VPOR     Y5, Y3, Y3

// LOAD64 loads the 64 bytes at p into Y0:Y1.
#define LOAD64 \
	MOVQ    p+0(FP), SI; \
	VMOVDQU (SI), Y0; \
	VMOVDQU 32(SI), Y1

// func masksAVX2(p *byte) (quote, bslash, ctl, high, letter, u uint64)
//
// The 64 bytes at p: bit k of each mask is set when byte k is a quote, a
// backslash, below 0x20, above 0x7f, one of / b f n r t, or u. letter
// and u are left 0 when the block has no backslash.
TEXT ·masksAVX2(SB), NOSPLIT, $0-56
	LOAD64
	EQ64(quote32)
	MOVQ AX, quote+8(FP)
	EQ64(bslash32)
	MOVQ AX, bslash+16(FP)
	MOVQ AX, R8

	// 0x20 > x, signed: below 0x20 or above 0x7f; the sign bits are the
	// bytes above 0x7f.
	VMOVDQU  space32<>(SB), Y4
	VPCMPGTB Y0, Y4, Y2
	VPCMPGTB Y1, Y4, Y3
	MASK64
	MOVQ      AX, R9
	VMOVDQU   Y0, Y2
	VMOVDQU   Y1, Y3
	MASK64
	MOVQ      AX, high+32(FP)
	ANDNQ     R9, AX, R9 // low &^ high: ANDN computes ^AX & R9
	MOVQ      R9, ctl+24(FP)

	MOVQ  $0, letter+40(FP)
	MOVQ  $0, u+48(FP)
	TESTQ R8, R8
	JZ    done

	CMPEQ(slash32)
	OREQ(b32)
	OREQ(f32)
	OREQ(n32)
	OREQ(r32)
	OREQ(t32)
	MASK64
	MOVQ AX, letter+40(FP)
	EQ64(u32)
	MOVQ AX, u+48(FP)

done:
	VZEROUPPER
	RET

// func quotesAVX2(p *byte) (quote, bslash uint64)
//
// The quote and backslash masks of masksAVX2 alone.
TEXT ·quotesAVX2(SB), NOSPLIT, $0-24
	LOAD64
	EQ64(quote32)
	MOVQ AX, quote+8(FP)
	EQ64(bslash32)
	MOVQ AX, bslash+16(FP)
	VZEROUPPER
	RET
