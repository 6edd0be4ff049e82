/*
 * models/cartpole/reset.c - the state an episode starts from, computed on
 * the host by the kernels' own function (cp_reset_state,
 * cartpole_shared.h): the initial state of `weft run`, and the tests'
 * reference; and the table of sines and cosines that precision = f64
 * uploads (cartpole_dyn64.h). Built with the kernels' host builds
 * (models/cartpole/local.mk); nothing here can be contracted into a fused
 * multiply-add (one product, no sum).
 */
#include "cartpole.h"

/* sin(k/128), its correction, cos(k/128), its correction, as doubles, for
 * k = 0 .. 27: the values of glibc's table (__sincostab), whose
 * corrections are not always the correctly rounded remainders (an
 * mpmath computation differs from row 2 on by one unit in the last
 * place of some corrections), which is why they are copied from it, and
 * checked against its sin and cos in tests/models/test-cartpole-f64.c. */
const uint64_t weft__cartpole_trig_table[4 * CP64_TABLE_ROWS] = {
	0x0000000000000000ul, 0x0000000000000000ul, 0x3ff0000000000000ul,
	0x0000000000000000ul, 0x3f7fffeaaaaeeeeful, 0xbc1e45e2ec67b77cul,
	0x3fefffc000155552ul, 0x3c8f4a01a0196daeul, 0x3f8fffaaaaeeeed5ul,
	0xbc02ab639a9f0777ul, 0x3fefff000155549ful, 0x3c828a28a03a5ef3ul,
	0x3f97ff7001033255ul, 0x3bfefe2b51527336ul, 0x3feffdc006bff7e6ul,
	0x3c8ae6dae86977bdul, 0x3f9ffeaaaeeee86ful, 0xbc3cd406fb224ae2ul,
	0x3feffc00155527d3ul, 0xbc83b54492d89b5bul, 0x3fa3feb2b12d45d5ul,
	0x3c34ec54203d1c11ul, 0x3feff9c03414a7baul, 0x3c6991f4be6c59bful,
	0x3fa7fdc01032fba9ul, 0xbc4599bdf46e997aul, 0x3feff7006bfdf99ful,
	0xbc78b3b560648d5ful, 0x3fabfc6d78586dacul, 0x3c18e4fd03dbf236ul,
	0x3feff3c0c8103a31ul, 0x3c74856dbddc0e66ul, 0x3faffaaaeeed4edbul,
	0xbc42d16d32684b69ul, 0x3feff0015549f4d3ul, 0x3c8328387b99426ful,
	0x3fb1fc343d808beful, 0xbc5f3d32e6f3be4ful, 0x3fefebc222a8ef9ful,
	0x3c57934934f54c77ul, 0x3fb3facb12d1755bul, 0xbc5921915299468cul,
	0x3fefe7034129ef6ful, 0xbc6cbf4337c96f97ul, 0x3fb5f911fd10b737ul,
	0xbc50184f02be9102ul, 0x3fefe1c4c3c873ebul, 0xbc35a9c9057c4a02ul,
	0x3fb7f701032550e4ul, 0x3c3afc2d1800501aul, 0x3fefdc06bf7e6b9bul,
	0x3c831902b535f8dbul, 0x3fb9f4902d55d1f9ul, 0x3c52696d7eac1dc1ul,
	0x3fefd5c94b43e000ul, 0xbc62e768cb4f92f9ul, 0x3fbbf1b78568391dul,
	0x3c5e91841dea4cc8ul, 0x3fefcf0c800e99b1ul, 0x3c6ea3d786d186acul,
	0x3fbdee6f16c1cce6ul, 0xbc450f8e2fb71673ul, 0x3fefc7d078d1bc88ul,
	0x3c8075d2447db685ul, 0x3fbfeaaeee86ee36ul, 0xbc4afcb2bcc6f03bul,
	0x3fefc015527d5bd3ul, 0x3c8b68f35094efb8ul, 0x3fc0f3378ddd71d1ul,
	0x3c6d8468724f0f9eul, 0x3fefb7db2bfe0695ul, 0x3c821dadf4f65ab1ul,
	0x3fc1f0d3d7afceaful, 0xbc66ef95099769a5ul, 0x3fefaf22263c4bd3ul,
	0xbc552ace133a2769ul, 0x3fc2ee285e4ab88ful, 0xbc6e4d0f05dee058ul,
	0x3fefa5ea641c36f2ul, 0x3c404da6ed17cc7cul, 0x3fc3eb312c5d66cbul,
	0x3c647d666b66cb91ul, 0x3fef9c340a7cc428ul, 0x3c8c5b6b063b7462ul,
	0x3fc4e7ea4dc5f27bul, 0x3c5949db2ac072fcul, 0x3fef91ff40374d01ul,
	0xbc67d03f4d3a9e4cul, 0x3fc5e44fcfa126f3ul, 0xbc66f443063f89b6ul,
	0x3fef874c2e1eecf6ul, 0xbc8c6514e1332b16ul, 0x3fc6e05dc05a4d4cul,
	0xbbd32c5c8b81c940ul, 0x3fef7c1afeffde24ul, 0xbc78f55bc47540b1ul,
	0x3fc7dc102fbaf2b5ul, 0x3c45ab50e23c97c3ul, 0x3fef706bdf9ece1cul,
	0xbc8698c80c36dcb4ul, 0x3fc8d7632efaa944ul, 0xbc620fa262cbb953ul,
	0x3fef643efeb82acdul, 0x3c76b00ac1fe28acul, 0x3fc9d252d0cec312ul,
	0x3c59c43d80b1137dul, 0x3fef57948cff6797ul, 0x3c6e3a0d3e03b1d5ul,
	0x3fcaccdb297a0765ul, 0xbc59883b57d6cdebul, 0x3fef4a6cbd1e3a79ul,
	0x3c813df0edaebb57ul
};

void weft__cartpole_reset_obs(const cartpole_params *p, uint32_t env,
			      uint32_t episode, float obs[4])
{
	/* Environment env's bookkeeping as setup makes it (weft/env.wk),
	 * alone (n = 1), moved to the episode asked for. */
	weft_u32 book[WEFT_ENV_WORDS];
	cartpole_obs s;

	weft_env_init(book, 1, 0, p->seed_lo, p->seed_hi);
	book[WEFT_ENV_STREAM] = env;
	book[WEFT_ENV_EPISODE] = episode;
	s = cp_reset_state(weft_env_rand(book, 1, 0, 0, 0));
	obs[0] = s.x;
	obs[1] = s.x_dot;
	obs[2] = s.theta;
	obs[3] = s.theta_dot;
}
