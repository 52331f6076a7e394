PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE hosts (
  id        INTEGER PRIMARY KEY,
  host_name TEXT,                 -- host name as the log or uname shows it
  gpu       TEXT,                 -- GPU model, e.g. 'NVIDIA H200'
  driver    TEXT,                 -- driver version
  cuda      TEXT,                 -- CUDA runtime version
  nccl      TEXT,                 -- NCCL version
  topology  TEXT,                 -- link topology, free text
  created   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
INSERT INTO hosts VALUES(1,'vm','NVIDIA H200 x2','580.159.04','13.0','2.28.3','PCIe Gen5 x16 (max Gen5 x16); NVLink x18; 2 GPUs','2026-12-04T11:36:27.828Z');
CREATE TABLE samples (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  op          TEXT NOT NULL CHECK (length(op) > 0),    -- fu_op name: 'allreduce', 'h2d', ...
  link        TEXT NOT NULL CHECK (length(link) > 0),  -- fu_link name: 'nvlink', 'pcie_h2d', ...
  ranks       INTEGER NOT NULL CHECK (ranks >= 1),
  bytes       INTEGER NOT NULL CHECK (bytes >= 0),     -- per-rank buffer size as nccl-tests prints it
  in_place    INTEGER NOT NULL DEFAULT 0 CHECK (in_place IN (0, 1)),
  dtype       TEXT,                                    -- 'float', 'bf16', ... (NULL unknown)
  algo        TEXT,                                    -- forced NCCL_ALGO, NULL = NCCL's choice
  proto       TEXT,                                    -- forced NCCL_PROTO, NULL = NCCL's choice
  graph       INTEGER NOT NULL DEFAULT 0 CHECK (graph IN (0, 1)),
  t_min_us    REAL CHECK (t_min_us IS NULL OR t_min_us > 0),
  t_median_us REAL CHECK (t_median_us IS NULL OR t_median_us > 0), -- nccl-tests logs: a mean
  t_p95_us    REAL CHECK (t_p95_us IS NULL OR t_p95_us > 0),
  count       INTEGER NOT NULL DEFAULT 1 CHECK (count >= 0),
  busbw_gbps  REAL CHECK (busbw_gbps IS NULL OR busbw_gbps >= 0),
  n_wrong     INTEGER                                  -- data errors; NULL when unknown
, nodes INTEGER CHECK (nodes IS NULL OR nodes >= 1)) STRICT;
INSERT INTO samples VALUES(1,1,'allreduce','nvlink',2,4,0,'float',NULL,NULL,0,22.01600000262260437,25.311999954283237457,41.343998163938522338,50,0.00015802781318048831531,0,NULL);
INSERT INTO samples VALUES(2,1,'issue','nvlink',2,4,0,'float','allreduce','host',0,NULL,21.113760000019965445,NULL,50,NULL,NULL,NULL);
INSERT INTO samples VALUES(3,1,'allreduce','nvlink',2,4,1,'float',NULL,NULL,0,21.82400040328502655,24.863999336957931518,27.039999142289161682,50,0.00016087516516517867378,0,NULL);
INSERT INTO samples VALUES(4,1,'allreduce','nvlink',2,16,0,'float',NULL,NULL,0,20.255999639630317687,24.960000067949295043,31.743999570608139038,50,0.00064102563928055929839,0,NULL);
INSERT INTO samples VALUES(5,1,'allreduce','nvlink',2,16,1,'float',NULL,NULL,0,22.080000489950180053,24.736000224947929382,43.776001781225204467,50,0.00064683052451879096203,0,NULL);
INSERT INTO samples VALUES(6,1,'allreduce','nvlink',2,64,0,'float',NULL,NULL,0,22.239999845623970031,23.888000287115573883,26.752000674605369567,50,0.002679169425266607861,0,NULL);
INSERT INTO samples VALUES(7,1,'allreduce','nvlink',2,64,1,'float',NULL,NULL,0,20.800000056624412536,23.808000609278678894,26.879999786615371704,50,0.0026881719742168235821,0,NULL);
INSERT INTO samples VALUES(8,1,'allreduce','nvlink',2,256,0,'float',NULL,NULL,0,19.360000267624855041,23.615999147295951843,39.487998932600021362,50,0.010840108792488339917,0,NULL);
INSERT INTO samples VALUES(9,1,'allreduce','nvlink',2,256,1,'float',NULL,NULL,0,20.543999969959259033,24.23999924212694168,27.904000133275985717,50,0.010561056435806110906,0,NULL);
INSERT INTO samples VALUES(10,1,'allreduce','nvlink',2,1024,0,'float',NULL,NULL,0,20.191999152302742004,23.567999713122844696,25.984000414609909057,50,0.043448744588613891215,0,NULL);
INSERT INTO samples VALUES(11,1,'allreduce','nvlink',2,1024,1,'float',NULL,NULL,0,20.86400054395198822,22.991999983787536621,37.376001477241516113,50,0.044537230372392926092,0,NULL);
INSERT INTO samples VALUES(12,1,'allreduce','nvlink',2,4096,0,'float',NULL,NULL,0,20.959999412298202514,23.152000270783901214,26.272000744938850402,50,0.17691775881537313841,0,NULL);
INSERT INTO samples VALUES(13,1,'allreduce','nvlink',2,4096,1,'float',NULL,NULL,0,21.247999742627143859,23.376000113785266876,27.424000203609466552,50,0.17522244952353982494,0,NULL);
INSERT INTO samples VALUES(14,1,'allreduce','nvlink',2,16384,0,'float',NULL,NULL,0,19.999999552965164184,22.624000906944274902,28.384000062942504882,50,0.7241866753537411494,0,NULL);
INSERT INTO samples VALUES(15,1,'allreduce','nvlink',2,16384,1,'float',NULL,NULL,0,20.640000700950622558,23.455999791622161865,29.247999191284179687,50,0.69849932407707104875,0,NULL);
INSERT INTO samples VALUES(16,1,'allreduce','nvlink',2,65536,0,'float',NULL,NULL,0,21.503999829292297363,24.14399944245815277,27.456000447273254394,50,2.7143804470419437002,0,NULL);
INSERT INTO samples VALUES(17,1,'allreduce','nvlink',2,65536,1,'float',NULL,NULL,0,19.328000023961067199,24.41600058227777481,36.224000155925750732,50,2.6841414825149110257,0,NULL);
INSERT INTO samples VALUES(18,1,'allreduce','nvlink',2,262144,0,'float',NULL,NULL,0,20.927999168634414672,25.328000076115131378,33.055998384952545166,50,10.349968383299541941,0,NULL);
INSERT INTO samples VALUES(19,1,'allreduce','nvlink',2,262144,1,'float',NULL,NULL,0,22.239999845623970031,25.232000276446342468,31.168000772595405578,50,10.38934674730116825,0,NULL);
INSERT INTO samples VALUES(20,1,'allreduce','nvlink',2,1048576,0,'float',NULL,NULL,0,21.888000890612602233,25.903999805450439453,46.976000070571899414,50,40.479308518963541983,0,NULL);
INSERT INTO samples VALUES(21,1,'allreduce','nvlink',2,1048576,1,'float',NULL,NULL,0,23.55200052261352539,26.736000552773475646,34.304000437259674072,50,39.219628153816195492,0,NULL);
INSERT INTO samples VALUES(22,1,'allreduce','nvlink',2,4194304,0,'float',NULL,NULL,0,35.264000296592712402,36.671999841928482055,37.760000675916671752,50,114.37347344238625624,0,NULL);
INSERT INTO samples VALUES(23,1,'allreduce','nvlink',2,4194304,1,'float',NULL,NULL,0,34.912001341581344604,36.479998379945755004,37.312000989913940429,50,114.97544370247959477,0,NULL);
INSERT INTO samples VALUES(24,1,'allreduce','nvlink',2,16777216,0,'float',NULL,NULL,0,79.07199859619140625,81.696003675460815429,83.328001201152801513,50,205.36152620938304381,0,NULL);
INSERT INTO samples VALUES(25,1,'allreduce','nvlink',2,16777216,1,'float',NULL,NULL,0,75.77600330114364624,77.983997762203216552,79.135999083518981933,50,215.13664958750644017,0,NULL);
INSERT INTO samples VALUES(26,1,'allreduce','nvlink',2,67108864,0,'float',NULL,NULL,0,249.43999946117401123,252.49598920345306396,254.49600815773010253,50,265.78190097873539343,0,NULL);
INSERT INTO samples VALUES(27,1,'allreduce','nvlink',2,67108864,1,'float',NULL,NULL,0,249.28000569343566894,251.82400643825531005,255.45600056648254394,50,266.49112985363615281,0,NULL);
INSERT INTO samples VALUES(28,1,'allreduce','nvlink',2,268435456,0,'float',NULL,NULL,0,886.6239786148071289,896.4639902114868164,904.47998046875,50,299.43807997984703205,0,NULL);
INSERT INTO samples VALUES(29,1,'allreduce','nvlink',2,268435456,1,'float',NULL,NULL,0,890.43200016021728515,900.14401078224182128,907.26399421691894531,50,298.21389998109816587,0,NULL);
INSERT INTO samples VALUES(30,1,'allreduce','nvlink',2,1073741824,0,'float',NULL,NULL,0,3252.4800300598144531,3285.1040363311767578,3317.6639080047607421,50,326.85169544863521195,0,NULL);
INSERT INTO samples VALUES(31,1,'allreduce','nvlink',2,1073741824,1,'float',NULL,NULL,0,3210.272073745727539,3244.3840503692626953,3272.9918956756591796,50,330.95398304580834292,0,NULL);
INSERT INTO samples VALUES(32,1,'allgather','nvlink',2,16,0,'float',NULL,NULL,0,14.047999866306781768,16.432000324130058288,27.424000203609466552,50,0.00048685490763118857487,0,NULL);
INSERT INTO samples VALUES(33,1,'issue','nvlink',2,16,0,'float','allgather','host',0,NULL,14.947199999966187533,NULL,50,NULL,NULL,NULL);
INSERT INTO samples VALUES(34,1,'allgather','nvlink',2,16,1,'float',NULL,NULL,0,14.303999952971935272,16.031999140977859497,18.592000007629394531,50,0.00049900202274537081709,0,NULL);
INSERT INTO samples VALUES(35,1,'allgather','nvlink',2,64,0,'float',NULL,NULL,0,14.27199970930814743,16.127999871969223022,19.936000928282737731,50,0.0019841269998778100075,0,NULL);
INSERT INTO samples VALUES(36,1,'allgather','nvlink',2,64,1,'float',NULL,NULL,0,14.816000126302242279,16.176000237464904785,18.624000251293182373,50,0.0019782393379226994971,0,NULL);
INSERT INTO samples VALUES(37,1,'allgather','nvlink',2,256,0,'float',NULL,NULL,0,14.751999638974666595,16.544000245630741119,23.871999233961105346,50,0.0077369437922853463024,0,NULL);
INSERT INTO samples VALUES(38,1,'allgather','nvlink',2,256,1,'float',NULL,NULL,0,14.655999839305877685,16.944000497460365295,23.584000766277313232,50,0.0075542962843506266529,0,NULL);
INSERT INTO samples VALUES(39,1,'allgather','nvlink',2,1024,0,'float',NULL,NULL,0,13.791999779641628265,17.103999853134155273,23.871999233961105346,50,0.029934518498383907297,0,NULL);
INSERT INTO samples VALUES(40,1,'allgather','nvlink',2,1024,1,'float',NULL,NULL,0,14.112000353634357452,15.391999855637550354,17.82399974763393402,50,0.03326403357601853683,0,NULL);
INSERT INTO samples VALUES(41,1,'allgather','nvlink',2,4096,0,'float',NULL,NULL,0,13.504000380635261535,15.343999955803155899,21.63200080394744873,50,0.13347236743346307941,0,NULL);
INSERT INTO samples VALUES(42,1,'allgather','nvlink',2,4096,1,'float',NULL,NULL,0,14.143999665975570678,15.99999982863664627,19.967999309301376342,50,0.12800000137090683516,0,NULL);
INSERT INTO samples VALUES(43,1,'allgather','nvlink',2,16384,0,'float',NULL,NULL,0,14.399999752640724182,16.080000437796115875,18.176000565290451049,50,0.50945272244798367466,0,NULL);
INSERT INTO samples VALUES(44,1,'allgather','nvlink',2,16384,1,'float',NULL,NULL,0,14.720000326633453369,16.495999880135059356,20.511999726295471191,50,0.49660524124185001504,0,NULL);
INSERT INTO samples VALUES(45,1,'allgather','nvlink',2,65536,0,'float',NULL,NULL,0,14.94400016963481903,17.24799908697605133,22.048000246286392211,50,1.8998145718098446987,0,NULL);
INSERT INTO samples VALUES(46,1,'allgather','nvlink',2,65536,1,'float',NULL,NULL,0,14.240000396966934204,17.648000270128250122,26.655999943614006042,50,1.8567542780166712557,0,NULL);
INSERT INTO samples VALUES(47,1,'allgather','nvlink',2,262144,0,'float',NULL,NULL,0,15.615999698638916015,18.047999590635299682,23.296000435948371887,50,7.2624115122437338243,0,NULL);
INSERT INTO samples VALUES(48,1,'allgather','nvlink',2,262144,1,'float',NULL,NULL,0,15.519999898970127105,18.176000565290451049,24.736000224947929382,50,7.2112673813567020886,0,NULL);
INSERT INTO samples VALUES(49,1,'allgather','nvlink',2,1048576,0,'float',NULL,NULL,0,15.104000456631183624,18.831999972462654113,26.367999613285064697,50,27.840271918364869919,0,NULL);
INSERT INTO samples VALUES(50,1,'allgather','nvlink',2,1048576,1,'float',NULL,NULL,0,15.168000012636184692,18.783999606966972351,28.127999976277351379,50,27.911414553349008116,0,NULL);
INSERT INTO samples VALUES(51,1,'allgather','nvlink',2,4194304,0,'float',NULL,NULL,0,28.384000062942504882,29.29599955677986145,30.176000669598579406,50,71.584927352808620073,0,NULL);
INSERT INTO samples VALUES(52,1,'allgather','nvlink',2,4194304,1,'float',NULL,NULL,0,27.008000761270523071,27.551999315619468688,28.287999331951141357,50,76.116145909277307169,0,NULL);
INSERT INTO samples VALUES(53,1,'allgather','nvlink',2,16777216,0,'float',NULL,NULL,0,55.103998631238937377,57.231999933719635009,58.720000088214874267,50,146.5719878689342579,0,NULL);
INSERT INTO samples VALUES(54,1,'allgather','nvlink',2,16777216,1,'float',NULL,NULL,0,52.255999296903610229,54.303999990224838256,55.808000266551971435,50,154.47495583216738168,0,NULL);
INSERT INTO samples VALUES(55,1,'allgather','nvlink',2,67108864,0,'float',NULL,NULL,0,157.56799280643463134,161.04000061750411987,164.54400122165679931,50,208.36085364714551815,0,NULL);
INSERT INTO samples VALUES(56,1,'allgather','nvlink',2,67108864,1,'float',NULL,NULL,0,150.75199306011199951,154.8799946904182434,156.3519984483718872,50,216.64794131140209286,0,NULL);
INSERT INTO samples VALUES(57,1,'allgather','nvlink',2,268435456,0,'float',NULL,NULL,0,545.66401243209838867,551.74401402473449707,555.74399232864379882,50,243.26086842508647123,0,NULL);
INSERT INTO samples VALUES(58,1,'allgather','nvlink',2,268435456,1,'float',NULL,NULL,0,524.22398328781127929,529.2319953441619873,535.45600175857543945,50,253.60849151366520004,0,NULL);
INSERT INTO samples VALUES(59,1,'allgather','nvlink',2,1073741824,0,'float',NULL,NULL,0,1930.816054344177246,1979.0880084037780761,2015.4879093170166015,50,271.27187357019568025,0,NULL);
INSERT INTO samples VALUES(60,1,'allgather','nvlink',2,1073741824,1,'float',NULL,NULL,0,1739.3599748611450195,1828.6719918251037597,1893.2160139083862304,50,293.58513413013815807,0,NULL);
INSERT INTO samples VALUES(61,1,'reducescatter','nvlink',2,16,0,'float',NULL,NULL,0,13.695999979972839355,16.351999714970588684,23.264000192284584045,50,0.00048923679913447147647,0,NULL);
INSERT INTO samples VALUES(62,1,'issue','nvlink',2,16,0,'float','reducescatter','host',0,NULL,13.986740000007102935,NULL,50,NULL,NULL,NULL);
INSERT INTO samples VALUES(63,1,'reducescatter','nvlink',2,16,1,'float',NULL,NULL,0,13.9840003103017807,15.328000299632549285,19.711999222636222839,50,0.00052192065785592266745,0,NULL);
INSERT INTO samples VALUES(64,1,'reducescatter','nvlink',2,64,0,'float',NULL,NULL,0,12.959999963641166687,15.263999812304973602,18.880000337958335876,50,0.0020964360844792076163,0,NULL);
INSERT INTO samples VALUES(65,1,'reducescatter','nvlink',2,64,1,'float',NULL,NULL,0,14.143999665975570678,15.90400002896785736,20.640000700950622558,50,0.0020120724309428176211,0,NULL);
INSERT INTO samples VALUES(66,1,'reducescatter','nvlink',2,256,0,'float',NULL,NULL,0,14.17599990963935852,16.015999950468540191,23.93599972128868103,50,0.0079920080167242644325,0,NULL);
INSERT INTO samples VALUES(67,1,'reducescatter','nvlink',2,256,1,'float',NULL,NULL,0,14.240000396966934204,16.09599962830543518,22.112000733613967895,50,0.007952286465943194868,0,NULL);
INSERT INTO samples VALUES(68,1,'reducescatter','nvlink',2,1024,0,'float',NULL,NULL,0,14.27199970930814743,16.575999557971954345,26.016000658273696899,50,0.030888031711714301896,0,NULL);
INSERT INTO samples VALUES(69,1,'reducescatter','nvlink',2,1024,1,'float',NULL,NULL,0,13.600000180304050445,15.263999812304973602,16.736000776290893554,50,0.033542977351667321861,0,NULL);
INSERT INTO samples VALUES(70,1,'reducescatter','nvlink',2,4096,0,'float',NULL,NULL,0,14.08000010997056961,15.375999733805656433,23.520000278949737548,50,0.13319459127573143875,0,NULL);
INSERT INTO samples VALUES(71,1,'reducescatter','nvlink',2,4096,1,'float',NULL,NULL,0,13.279999606311321258,16.463999636471271514,24.095999076962471008,50,0.12439261693514880313,0,NULL);
INSERT INTO samples VALUES(72,1,'reducescatter','nvlink',2,16384,0,'float',NULL,NULL,0,14.783999882638454437,17.455999739468097686,24.607999250292778015,50,0.46929423248545593105,0,NULL);
INSERT INTO samples VALUES(73,1,'reducescatter','nvlink',2,16384,1,'float',NULL,NULL,0,14.592000283300876617,16.303999349474906921,17.82399974763393402,50,0.50245340571997965106,0,NULL);
INSERT INTO samples VALUES(74,1,'reducescatter','nvlink',2,65536,0,'float',NULL,NULL,0,13.824000023305416107,16.719999723136425018,21.376000717282295227,50,1.9598086448923222047,0,NULL);
INSERT INTO samples VALUES(75,1,'reducescatter','nvlink',2,65536,1,'float',NULL,NULL,0,14.143999665975570678,17.71199982613325119,29.120000079274177551,50,1.8500451852789827622,0,NULL);
INSERT INTO samples VALUES(76,1,'reducescatter','nvlink',2,262144,0,'float',NULL,NULL,0,15.968000516295433044,18.447999842464923858,26.976000517606735229,50,7.1049436859972816549,0,NULL);
INSERT INTO samples VALUES(77,1,'reducescatter','nvlink',2,262144,1,'float',NULL,NULL,0,15.519999898970127105,18.687999807298183441,25.85599943995475769,50,7.0136987024589299011,0,NULL);
INSERT INTO samples VALUES(78,1,'reducescatter','nvlink',2,1048576,0,'float',NULL,NULL,0,15.90400002896785736,18.352000042796134948,26.399999856948852539,50,28.568439340528620107,0,NULL);
INSERT INTO samples VALUES(79,1,'reducescatter','nvlink',2,1048576,1,'float',NULL,NULL,0,16.000000759959220886,17.967999912798404693,24.639999493956565856,50,29.178985003587158074,0,NULL);
INSERT INTO samples VALUES(80,1,'reducescatter','nvlink',2,4194304,0,'float',NULL,NULL,0,25.887999683618545532,27.48799975961446762,28.607999905943870544,50,76.293365044376500348,0,NULL);
INSERT INTO samples VALUES(81,1,'reducescatter','nvlink',2,4194304,1,'float',NULL,NULL,0,25.760000571608543395,26.655999943614006042,42.68800094723701477,50,78.67467003436935613,0,NULL);
INSERT INTO samples VALUES(82,1,'reducescatter','nvlink',2,16777216,0,'float',NULL,NULL,0,53.40800061821937561,54.7679997980594635,55.936001241207122802,50,153.16622901932643685,0,NULL);
INSERT INTO samples VALUES(83,1,'reducescatter','nvlink',2,16777216,1,'float',NULL,NULL,0,50.912000238895416259,53.552001714706420898,54.976001381874084472,50,156.64415393264982867,0,NULL);
INSERT INTO samples VALUES(84,1,'reducescatter','nvlink',2,67108864,0,'float',NULL,NULL,0,160.06399691104888916,163.2000058889389038,165.31200706958770751,50,205.60312983588070777,0,NULL);
INSERT INTO samples VALUES(85,1,'reducescatter','nvlink',2,67108864,1,'float',NULL,NULL,0,158.81599485874176025,161.37600690126419067,163.26400637626647949,50,207.92701867093441592,0,NULL);
INSERT INTO samples VALUES(86,1,'reducescatter','nvlink',2,268435456,0,'float',NULL,NULL,0,561.76000833511352539,567.45600700378417968,573.50397109985351562,50,236.52534530153442914,0,NULL);
INSERT INTO samples VALUES(87,1,'reducescatter','nvlink',2,268435456,1,'float',NULL,NULL,0,556.89597129821777343,562.39998340606689453,567.68000125885009765,50,238.6517282364345931,0,NULL);
INSERT INTO samples VALUES(88,1,'reducescatter','nvlink',2,1073741824,0,'float',NULL,NULL,0,1966.7520523071289062,1995.3600168228149414,2011.1041069030761718,50,269.05967217627841136,0,NULL);
INSERT INTO samples VALUES(89,1,'reducescatter','nvlink',2,1073741824,1,'float',NULL,NULL,0,1954.9759626388549804,1975.1679897308349609,1996.6399669647216796,50,271.81025350312700084,0,NULL);
INSERT INTO samples VALUES(90,1,'gemm','hbm',1,1099511627776,0,'bf16','8192x8192x8192','alone',0,1387.1680498123168945,1427.7920126914978027,1638.9759778976440429,100,770078.28731534641703,NULL,NULL);
INSERT INTO samples VALUES(91,1,'gemm','hbm',2,1099511627776,0,'bf16','8192x8192x8192','+allreduce',0,1462.94403076171875,1718.7359929084777832,1809.3440532684326171,50,639721.06961895036513,NULL,NULL);
INSERT INTO samples VALUES(92,1,'gemm','hbm',1,137438953472,0,'bf16','4096x4096x4096','alone',0,188.70399892330169677,198.60800355672836303,214.59199488162994384,100,692011.1526761475252,NULL,NULL);
INSERT INTO samples VALUES(93,1,'gemm','hbm',2,137438953472,0,'bf16','4096x4096x4096','+allreduce',0,213.59999477863311767,302.16000974178314208,307.20001459121704101,50,454854.87503608170662,NULL,NULL);
INSERT INTO samples VALUES(94,1,'gemm','hbm',1,1099511627776,0,'bf16','8192x8192x8192','alone',0,1385.1200342178344726,1460.1280093193054199,1585.9520435333251953,100,753024.13265024579595,NULL,NULL);
INSERT INTO samples VALUES(95,1,'gemm','hbm',1,1099511627776,0,'bf16','8192x8192x8192','+d2h',0,1402.1120071411132812,1547.2480058670043945,1598.4640121459960937,50,710624.03933097061234,NULL,NULL);
INSERT INTO samples VALUES(96,1,'gemm','hbm',1,137438953472,0,'bf16','4096x4096x4096','alone',0,179.16800081729888916,202.41599529981613159,206.4319998025894165,100,678992.55327340646182,NULL,NULL);
INSERT INTO samples VALUES(97,1,'gemm','hbm',1,137438953472,0,'bf16','4096x4096x4096','+d2h',0,186.65599822998046875,189.15199488401412963,196.19199633598327636,50,726605.88938687124755,NULL,NULL);
INSERT INTO samples VALUES(98,1,'gemm','hbm',1,1099511627776,0,'bf16','8192x8192x8192','alone',0,1388.0000114440917968,1509.2639923095703125,1602.3679971694946289,100,728508.48716894013343,NULL,NULL);
INSERT INTO samples VALUES(99,1,'gemm','hbm',1,1099511627776,0,'bf16','8192x8192x8192','+h2d',0,1416.159987449645996,1576.7520070075988769,1637.2159719467163085,50,697326.92451914609411,NULL,NULL);
INSERT INTO samples VALUES(100,1,'gemm','hbm',1,137438953472,0,'bf16','4096x4096x4096','alone',0,182.49599635601043701,205.10400086641311645,207.87200331687927246,100,670093.96643372043035,NULL,NULL);
INSERT INTO samples VALUES(101,1,'gemm','hbm',1,137438953472,0,'bf16','4096x4096x4096','+h2d',0,193.37600469589233398,196.46400213241577148,222.62400388717651367,50,699563.03434848494363,NULL,NULL);
INSERT INTO samples VALUES(102,1,'gemm','hbm',1,1099511627776,0,'bf16','8192x8192x8192','alone',0,1388.4479999542236328,1537.4720096588134765,1603.5519838333129882,100,715142.53324195276944,NULL,NULL);
INSERT INTO samples VALUES(103,1,'gemm','hbm',1,1099511627776,0,'bf16','8192x8192x8192','+d2d',0,1577.1520137786865234,1626.6080141067504882,1676.7679452896118164,50,675953.65216480579693,NULL,NULL);
INSERT INTO samples VALUES(104,1,'gemm','hbm',1,137438953472,0,'bf16','4096x4096x4096','alone',0,183.77600610256195068,206.88000321388244628,209.5679938793182373,100,664341.41210791177582,NULL,NULL);
INSERT INTO samples VALUES(105,1,'gemm','hbm',1,137438953472,0,'bf16','4096x4096x4096','+d2d',0,308.67201089859008789,317.1519935131072998,320.25599479675292968,50,433353.58529385976725,NULL,NULL);
CREATE TABLE fits (
  id      INTEGER PRIMARY KEY,
  run_id  INTEGER REFERENCES runs (id) ON DELETE CASCADE,
  cmdline TEXT,
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
, profile_id INTEGER REFERENCES profiles (id) ON DELETE SET NULL) STRICT;
CREATE TABLE fit_segments (
  id               INTEGER PRIMARY KEY,
  fit_id           INTEGER NOT NULL REFERENCES fits (id) ON DELETE CASCADE,
  op               TEXT NOT NULL,
  link             TEXT NOT NULL,
  ranks            INTEGER NOT NULL CHECK (ranks >= 1),
  algo             TEXT,                     -- NULL = NCCL's choice
  segment          INTEGER NOT NULL CHECK (segment >= 0),
  lo_bytes         REAL NOT NULL CHECK (lo_bytes >= 0),
  hi_bytes         REAL NOT NULL CHECK (hi_bytes >= lo_bytes),  -- may be +Inf for the last one
  alpha_us         REAL NOT NULL,
  alpha_lo         REAL,                     -- 95% confidence interval of alpha
  alpha_hi         REAL,
  beta_us_per_byte REAL NOT NULL,
  beta_lo          REAL,                     -- 95% confidence interval of beta
  beta_hi          REAL,
  max_rel_err      REAL CHECK (max_rel_err IS NULL OR max_rel_err >= 0),
  n_samples        INTEGER NOT NULL CHECK (n_samples >= 0),
  method           TEXT,                     -- 'wls', 'bisquare'
  profile          TEXT, flags TEXT,                     -- profile name written, NULL if none
  UNIQUE (fit_id, op, link, ranks, algo, segment)
) STRICT;
CREATE TABLE plans (
  id      INTEGER PRIMARY KEY,
  plan    TEXT NOT NULL UNIQUE,
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE TABLE predictions (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER REFERENCES runs (id) ON DELETE CASCADE,
  workload_id         INTEGER NOT NULL REFERENCES workloads (id),
  plan_id             INTEGER NOT NULL REFERENCES plans (id),
  comm                TEXT NOT NULL,        -- 'allreduce:8:nvlink', 'offload'
  profile             TEXT,                 -- profile name
  iter_us             REAL NOT NULL CHECK (iter_us >= 0),
  iter_lo_us          REAL,                 -- interval from the fit CIs
  iter_hi_us          REAL,
  compute_us          REAL,
  comm_us             REAL,
  exposed_comm_us     REAL,
  n_ops               INTEGER CHECK (n_ops IS NULL OR n_ops >= 0),
  fusion_buffer_bytes INTEGER CHECK (fusion_buffer_bytes IS NULL OR fusion_buffer_bytes >= 0),
  json                TEXT,                 -- the full predict JSON object
  cmdline             TEXT,
  created             TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
, profile_id INTEGER REFERENCES profiles (id), framework TEXT, ranks INTEGER CHECK (ranks IS NULL OR ranks >= 1), buckets TEXT CHECK (buckets IS NULL OR json_valid(buckets))) STRICT;
CREATE TABLE IF NOT EXISTS "runs" (
  id            INTEGER PRIMARY KEY,
  kind          TEXT NOT NULL CHECK (kind IN ('import', 'calib', 'fit', 'predict', 'plan',
                                              'validate', 'measure')),
  host_id       INTEGER REFERENCES hosts (id),
  tool          TEXT,             -- 'nccl-tests 2.19.6', 'fusim calib', 'csv', ...
  source_file   TEXT,             -- imported file, if any
  cmdline       TEXT,             -- fusim command line (or the benchmark's, see notes)
  notes         TEXT,             -- free text: device lines, clocks, 'time column is a mean', ...
  fusim_version TEXT,             -- fusim release that wrote the run ('0.1.0'); NULL: schema 1
  fusim_commit  TEXT,             -- source commit of that build (git describe --dirty)
  content_hash  TEXT CHECK (content_hash IS NULL OR length(content_hash) = 64),
                                  -- SHA-256 of an imported file's bytes
  created       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
INSERT INTO runs VALUES(1,'calib',1,'fusim calib 0.1.0',NULL,'fusim calib -g 2 --suite coll,overlap --ops allreduce,allgather,reducescatter --db /tmp/x2out/calib.db --progress off --format csv',replace('start: SM 1980 MHz (max 1980), memory 3201 MHz, 85 W, 35 C, PCIe Gen5 x16; 132 SMs, 150 GB HBM, L2 60 MB\nend: SM 1530 MHz (max 1980), memory 3201 MHz, 522 W, 49 C, PCIe Gen5 x16; 105 samples in 6.9 s; 0 measurements failed','\n',char(10)),'0.1.0','0b768a3cd911-dirty',NULL,'2026-12-04T11:36:27.828Z');
CREATE TABLE IF NOT EXISTS "workloads" (
  id      INTEGER PRIMARY KEY,
  hash    TEXT UNIQUE CHECK (hash IS NULL OR length(hash) = 64),
                                  -- SHA-256 of json; NULL: a schema 1 row (content unknown)
  name    TEXT NOT NULL,          -- label (the workload's "name"); not unique
  json    TEXT CHECK (json IS NULL OR json_valid(json)),
                                  -- canonical JSON (sorted keys, compact), as simulated
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE TABLE profiles (
  id      INTEGER PRIMARY KEY,
  hash    TEXT UNIQUE CHECK (hash IS NULL OR length(hash) = 64),
                                  -- SHA-256 of json; NULL: a schema 1 name (content unknown)
  name    TEXT NOT NULL,          -- label (the profile's "name"); not unique
  gpu     TEXT,                   -- the profile's "gpu": the machine it describes
  json    TEXT CHECK (json IS NULL OR json_valid(json)),
                                  -- canonical JSON (sorted keys, compact), as used
  run_id  INTEGER REFERENCES runs (id) ON DELETE SET NULL, -- run that first stored it
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE TABLE IF NOT EXISTS "measurements" (
  id                 INTEGER PRIMARY KEY,
  prediction_id      INTEGER REFERENCES predictions (id) ON DELETE CASCADE,
                                  -- validate: the prediction made beside it; NULL: imported
  run_id             INTEGER REFERENCES runs (id) ON DELETE CASCADE,
  workload_id        INTEGER NOT NULL REFERENCES workloads (id),
  plan_id            INTEGER NOT NULL REFERENCES plans (id),
  gpus               INTEGER CHECK (gpus IS NULL OR gpus >= 1),  -- NULL: not said
  framework          TEXT,        -- 'ddp', 'hooks', 'ideal', ...; NULL: not said
  measured_us        REAL NOT NULL CHECK (measured_us > 0),  -- median iteration time
  spread_us          REAL CHECK (spread_us IS NULL OR spread_us >= 0),
  iterations         INTEGER CHECK (iterations IS NULL OR iterations >= 0),
  compute_only_us    REAL,
  sm_clock_mhz_start REAL,
  sm_clock_mhz_end   REAL,
  power_w            REAL,
  git_commit         TEXT,
  notes              TEXT,
  json               TEXT,
  created            TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE UNIQUE INDEX hosts_dedup ON hosts (
  coalesce(host_name, ''), coalesce(gpu, ''), coalesce(driver, ''), coalesce(cuda, ''),
  coalesce(nccl, ''), coalesce(topology, ''));
CREATE INDEX samples_key ON samples (op, link, ranks, bytes);
CREATE INDEX fit_segments_key ON fit_segments (op, link, ranks);
CREATE INDEX predictions_key ON predictions (workload_id, plan_id, comm);
CREATE INDEX runs_kind ON runs (kind, created);
CREATE INDEX runs_content ON runs (content_hash) WHERE content_hash IS NOT NULL;
CREATE INDEX workloads_name ON workloads (name);
CREATE INDEX profiles_gpu ON profiles (gpu, created);
CREATE INDEX predictions_run ON predictions (run_id);
CREATE INDEX measurements_prediction ON measurements (prediction_id);
CREATE INDEX measurements_key ON measurements (workload_id, plan_id);
CREATE VIEW v_measurement_prediction AS
SELECT m.id AS measurement_id, m.prediction_id
FROM measurements m WHERE m.prediction_id IS NOT NULL
UNION ALL
SELECT m.id, max(p.id)
FROM measurements m
JOIN predictions p ON p.workload_id = m.workload_id AND p.plan_id = m.plan_id
  AND (m.gpus IS NULL OR p.ranks IS NULL OR p.ranks = m.gpus)
  AND (m.framework IS NULL OR coalesce(p.framework, 'ideal') = m.framework)
WHERE m.prediction_id IS NULL
GROUP BY m.id, p.profile_id, p.comm;
CREATE VIEW v_prediction_error AS
SELECT m.id AS measurement_id, p.id AS prediction_id, w.name AS workload, pl.plan AS plan,
       p.comm, p.profile, p.iter_us AS predicted_us, m.measured_us,
       (p.iter_us - m.measured_us) / m.measured_us AS rel_err,
       abs(p.iter_us - m.measured_us) / m.measured_us AS abs_rel_err,
       m.spread_us, m.iterations, m.created AS measured_at, m.git_commit,
       w.hash AS workload_hash, pr.hash AS profile_hash, p.framework, m.gpus, m.notes,
       CASE WHEN m.prediction_id IS NULL THEN 'import' ELSE 'validate' END AS source
FROM v_measurement_prediction mp
JOIN measurements m ON m.id = mp.measurement_id
JOIN predictions p ON p.id = mp.prediction_id
JOIN workloads w ON w.id = p.workload_id
JOIN plans pl ON pl.id = p.plan_id
LEFT JOIN profiles pr ON pr.id = p.profile_id;
CREATE VIEW v_plan_accuracy AS
SELECT workload, workload_hash, plan, comm, profile, profile_hash, framework,
       count(*) AS n_measured, avg(measured_us) AS mean_measured_us,
       avg(predicted_us) AS mean_predicted_us, avg(rel_err) AS mean_rel_err,
       max(abs_rel_err) AS max_abs_rel_err
FROM v_prediction_error
GROUP BY workload_hash, workload, plan, comm, profile_hash, profile, framework;
CREATE VIEW v_latest_profile AS
SELECT p.gpu, p.id AS profile_id, p.name, p.hash, p.created, r.kind AS stored_by,
       r.fusim_version, r.fusim_commit
FROM profiles p LEFT JOIN runs r ON r.id = p.run_id
WHERE p.json IS NOT NULL AND p.id = (
    SELECT q.id FROM profiles q WHERE q.gpu IS p.gpu AND q.json IS NOT NULL
    ORDER BY q.created DESC, q.id DESC LIMIT 1);
CREATE VIEW v_fit_error_by_size AS
SELECT s.fit_id, s.op, s.link, s.ranks, s.algo, s.segment, x.bytes,
       count(*) AS n_samples, avg(x.t_median_us) AS measured_us,
       s.alpha_us + s.beta_us_per_byte * x.bytes AS fitted_us,
       (s.alpha_us + s.beta_us_per_byte * x.bytes - avg(x.t_median_us)) / avg(x.t_median_us)
         AS rel_err
FROM fit_segments s
JOIN samples x ON x.op = s.op AND x.link = s.link AND x.ranks = s.ranks
  AND coalesce(x.algo, '') = coalesce(s.algo, '') AND x.bytes >= s.lo_bytes
  AND x.bytes < s.hi_bytes AND x.t_median_us IS NOT NULL
GROUP BY s.id, x.bytes;
CREATE VIEW v_prediction_provenance AS
SELECT p.id AS prediction_id, r.kind, r.created, r.cmdline, r.fusim_version, r.fusim_commit,
       h.host_name, h.gpu, h.driver, h.cuda, h.nccl, w.name AS workload, w.hash AS workload_hash,
       pr.name AS profile, pr.hash AS profile_hash, pl.plan, p.buckets, p.comm, p.framework
FROM predictions p
LEFT JOIN runs r ON r.id = p.run_id
LEFT JOIN hosts h ON h.id = r.host_id
JOIN workloads w ON w.id = p.workload_id
JOIN plans pl ON pl.id = p.plan_id
LEFT JOIN profiles pr ON pr.id = p.profile_id;
CREATE VIEW v_fit_quality AS
SELECT s.fit_id, f.created, s.op, s.link, s.ranks, s.algo, s.segment, s.lo_bytes, s.hi_bytes,
       s.alpha_us, s.alpha_lo, s.alpha_hi, s.beta_us_per_byte, s.beta_lo, s.beta_hi,
       CASE WHEN s.beta_us_per_byte > 0 THEN 1e-3 / s.beta_us_per_byte END AS bw_gbps,
       s.max_rel_err, s.n_samples, s.method, s.profile, f.cmdline, s.flags,
       coalesce(instr(s.flags, 'ci_spans_zero') > 0, 0) AS ci_spans_zero,
       coalesce(instr(s.flags, 'over_link_limit') > 0, 0) AS over_link_limit
FROM fit_segments s JOIN fits f ON f.id = s.fit_id;
COMMIT;
