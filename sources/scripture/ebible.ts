/**
 * Two eBible.org USFM editions, read by sources/readers/usfm.ts (decisions on \d titles,
 * verse ranges and lettered verses are documented there):
 *
 * - web-catholic: World English Bible Catholic Edition (eBible id eng-web-c), 73 books as
 *   vendored per book in jsbang01357/BibleFrame at commit c508502d…, whose build recorded
 *   the same sha256 for every file (no eBible signature was committed there). copr.htm:
 *   public domain, "World English Bible" is a trademark of eBible.org, 2020 stable text,
 *   HTML generated 10 Jul 2026 from source files of that date. Greek Esther (ESG) is
 *   EsthGr and Greek Daniel (DAG, with Susanna and Bel as chapters 13 and 14) is Dan, in
 *   the edition's own numbering. 35,408 `\v` markers; 29 are empty (critical-text
 *   omissions, kept with text "" because the edition numbers them); with 12 empty verses
 *   for the other numbers of its 5 Sirach ranges and 117 verse-0 titles: 35,537 verses.
 * - brenton: Brenton's English Septuagint (eBible id eng-Brenton), as vendored in
 *   GlenPrideaux/OT_parallel, whose 39 main files plus the 14 apocrypha it moved to
 *   `unused/` all match eBible's signed signature.txt.asc (2025-12-22). Its 29,005 `\v`
 *   markers include 315 lettered Septuagint segments (`\v 50a`): 314 join the verse
 *   before them (a verse number is an integer), one (Sir 6:2a) starts its verse; with
 *   2 texts before verse 1 (Lam 1:0, Sir 1:0) that makes 28,693 verses.
 *
 * Book order: eBible's file numbers (02-GEN … 43-ESG … 66-DAG … 70-MAT) are its fixed
 * book codes, not the edition's order. WEB Catholic is in Catholic order (copr.htm says
 * "Catholic Book Order"; the vendoring repo lists the same). For Brenton, which has no
 * table of contents in the files, Greek Esther and Daniel stand where Esther and Daniel
 * stand in the Old Testament, and the apocrypha follow in eBible's order.
 */
import type { InputSpec } from '../contract.ts';
import type { TranslationSource, Verse } from './contract.ts';
import { readUsfm } from '../readers/usfm.ts';

type Pin = [file: string, sha256: string];

const inputsOf = (base: string, pins: Pin[]): Record<string, InputSpec> =>
  Object.fromEntries(pins.map(([file, sha256]) => [file, { kind: 'url', url: base + file, sha256, format: 'text' }]));

/**
 * Reads every pinned file and orders the books by `order` (USFM codes). A file whose
 * `\id` is not the code in its name, a non-scripture file, or a book missing from the
 * order throws: each would mean the pins and the edition no longer agree.
 */
export function readEdition(slug: string, base: string, pins: Pin[], order: string[], raw: Record<string, unknown>) {
  const books = new Map<string, Verse[]>();
  const notes: string[] = [];
  for (const [file] of pins) {
    const text = raw[file];
    if (typeof text !== 'string') throw new Error(`${slug}: ${base + file} missing from the raw inputs`);
    const b = readUsfm(base + file, text);
    if (!b || !file.includes(`-${b.code}eng-`)) throw new Error(`${slug}: ${file} holds ${b ? b.code : 'no scripture book'}`);
    if (!order.includes(b.code)) throw new Error(`${slug}: ${file}: book ${b.code} is not in the edition's order`);
    books.set(b.code, b.verses);
    notes.push(...b.notes);
  }
  const missing = order.filter((c) => !books.has(c));
  if (missing.length) throw new Error(`${slug}: no file for ${missing.join(', ')}`);
  return { verses: order.flatMap((c) => books.get(c)!), notes };
}

const PUBLIC_DOMAIN = { spdx: 'LicenseRef-Public-Domain', name: 'Public Domain' };

export const WEB_C_BASE = 'https://raw.githubusercontent.com/jsbang01357/BibleFrame/c508502d5b2666fbcde56ccde0c2355fba40709c/vendor/web-c-usfm/';
/** Catholic order, as in eBible's eng-web-c and the vendoring repo's web-c.meta.json. */
export const WEB_C_ORDER = (
  'GEN EXO LEV NUM DEU JOS JDG RUT 1SA 2SA 1KI 2KI 1CH 2CH EZR NEH TOB JDT ESG 1MA 2MA JOB PSA PRO ECC SNG WIS SIR ' +
  'ISA JER LAM BAR EZK DAG HOS JOL AMO OBA JON MIC NAM HAB ZEP HAG ZEC MAL MAT MRK LUK JHN ACT ROM 1CO 2CO GAL EPH ' +
  'PHP COL 1TH 2TH 1TI 2TI TIT PHM HEB JAS 1PE 2PE 1JN 2JN 3JN JUD REV'
).split(' ');
/** sha256 of each book file (sha256sum of the mirror; equal to the vendoring repo's web-c.meta.json). */
export const WEB_C_PINS: Pin[] = [
  ['02-GENeng-web-c.usfm', '66e2471b37742e15e9fc615336e0a3afeddd847ef4157d49c4478c7cd8f4ad3e'],
  ['03-EXOeng-web-c.usfm', 'f9134cf889ddbc93015cf222d25d833b17954e14aa536a4e255bd3eefa41e824'],
  ['04-LEVeng-web-c.usfm', '981193efa149d7f5c586e3d3792a71b4ba8454ac2d2b9f2618be60446e987fc1'],
  ['05-NUMeng-web-c.usfm', 'c3028e7cdaeb467743b523bc227f9c55a27ec93a39bfae5542559566945f7b95'],
  ['06-DEUeng-web-c.usfm', '64908cd5c183dfa637477cd3ea07addb5c3808a3e1d39dd466c8e6a15984ae76'],
  ['07-JOSeng-web-c.usfm', '4b43197ec702e067a2e3aaaa77482e70e831754776f46009c12476ec986d772f'],
  ['08-JDGeng-web-c.usfm', '81302c88205ddc17c3ca661a0f27d90aee9e6446a2a1d59bb896f51d1b9cc5c6'],
  ['09-RUTeng-web-c.usfm', '02b7b50753d8c580f5beea450122e9dfbc7d3570c2c4650ca135d2675c411102'],
  ['10-1SAeng-web-c.usfm', '593dfaef0630d16bb75b1b0ce0b81016581b8626aec6b91709aa1c111ab0c24f'],
  ['11-2SAeng-web-c.usfm', '5b667e2ccee63537e72e36606f25a59f8f375043ce8f347365e7b2f6f4f9cca9'],
  ['12-1KIeng-web-c.usfm', '5ab4dfb89e5d3c212ac780db9030e855d46563ccf3cf4e101bafe0de720013e8'],
  ['13-2KIeng-web-c.usfm', 'e4ade265a98ed78b4f0fe9f24889a9aac013ff1b20e7948ec6d314fee9f45704'],
  ['14-1CHeng-web-c.usfm', '6b36d47c413ebb9e55e8a010a8bc36c7c1b266d3bb34622e7091f1e5498028b2'],
  ['15-2CHeng-web-c.usfm', '163d531e84de9770438a76f44772701814d11f8457c752ddd3659f8ea6903006'],
  ['16-EZReng-web-c.usfm', 'c54f5c27e105fcfa2c5ab31f12d38acdde61b2289d3bab10a9fe1b0925276343'],
  ['17-NEHeng-web-c.usfm', '721319eb7e28421352195af22cb6214351ee3849b2572933a202028e5b264aed'],
  ['19-JOBeng-web-c.usfm', 'f329a83438c105771be6e4e2579cbbf9d49e98545b4330185626f6c7f7963140'],
  ['20-PSAeng-web-c.usfm', '590f48eca567a1f90eed3756b574040e3c5668f52a4ec2dbfaff688a9ea105be'],
  ['21-PROeng-web-c.usfm', 'ff8a8d7458d28c88176f389cc96707ea6b4f964b55f5f9e2e28747e0f89d3f2b'],
  ['22-ECCeng-web-c.usfm', '16b1ea682f91d88409e5f4220265ccb0f5dc46585043b2843d933f35749ee8cf'],
  ['23-SNGeng-web-c.usfm', '44306d63daf14c764e03af9ca40b67ad81483be9d9acb0da7943db5e8a618437'],
  ['24-ISAeng-web-c.usfm', 'a53b94d2c79f7dbc8fdb7edd8f3e31fc96544004e670c4db556dbca9e31d05c6'],
  ['25-JEReng-web-c.usfm', '8839845fea55c255e14ba5d5348a592fe820b54016d0d54f08a8ad3165c5b879'],
  ['26-LAMeng-web-c.usfm', '323be8b4c73ef683e7e00da8c4ed93da6aaaef57cbaf8a349e5826edf266f706'],
  ['27-EZKeng-web-c.usfm', '42e26699cdbf3bfb49054b1316598255d056e482b996a2b3fda7c15414cbc8d4'],
  ['29-HOSeng-web-c.usfm', '2ef773e6465b7d6fc989c51b530595d4927732af13d87d81a58deccfdbd4224b'],
  ['30-JOLeng-web-c.usfm', 'd8ec39ce1166ee0e8cb463d3780ef4c18d0a8c1ecb5e360ffbcc3aada224cb4b'],
  ['31-AMOeng-web-c.usfm', '9c7d3ee6cd0ab08dff027fec35e6cd4a8d29476f98a3f1c01f75773b6e04533b'],
  ['32-OBAeng-web-c.usfm', 'd31b3e9336a51ff245af49b17dcfffbf481aa89b9006b97ae8128726a9b95673'],
  ['33-JONeng-web-c.usfm', '78aef894dd3d9021de288b03954e5501d95dc70023d60875bdd352437b0a336d'],
  ['34-MICeng-web-c.usfm', '7324b123fa1011509aada88714af986074187a2a598966d1f5feb71ab663f7d1'],
  ['35-NAMeng-web-c.usfm', 'eea3d2448382f73c199b65f496b1dc4d6813e56f455bc4db072ae0c2e1cec79a'],
  ['36-HABeng-web-c.usfm', '22202c5de8ba956a4bbecc29b041cb17bea981d0f680242e10997a525a3febf8'],
  ['37-ZEPeng-web-c.usfm', '82b4e3ba3d4c025ddbc0f92d75c2dba92a84083da9cd88aeb41dcbf1998b38d0'],
  ['38-HAGeng-web-c.usfm', 'ea0d891d92010b3ff0c30ca91d62c74c11e329fc2bbdfd46084273ad36833353'],
  ['39-ZECeng-web-c.usfm', '35f0fac1ca34155ee5bc422b46d4e904b717f2621a245dcebecd6e87009a6436'],
  ['40-MALeng-web-c.usfm', '0ad89b5f7d81712fb340435acbfa5320d206b851eb92e413accf9cf86581436a'],
  ['41-TOBeng-web-c.usfm', '39da13000df54b460e003894be05575a70f03cb9cfdccd1e845a9b09dccbd35d'],
  ['42-JDTeng-web-c.usfm', 'd8d450dec5bd9cce8e05d77a788e69f94962772f6d773b766b7424548c5cdde8'],
  ['43-ESGeng-web-c.usfm', 'b7214cfd140cbfee0b0d5809413cc9ee042650fd6087a146bb8faa6b9fb9a576'],
  ['45-WISeng-web-c.usfm', 'd8a6c8ed3b228f7a51c26d83591f0b162f16ce8b4a5274e6b4416da355e6e446'],
  ['46-SIReng-web-c.usfm', '102424b55c3e48a2880cad8deafd0a2bd8bf8a0dba79f774e801fb41cd599549'],
  ['47-BAReng-web-c.usfm', 'ec251954c01deff81d9e899799c46ae11c63a9f5bbf49f909f8d1df2a3c4fe8a'],
  ['52-1MAeng-web-c.usfm', '52f0d64bfec70780fab11cb4cc438c9c0c1fd7eac8edc0ec6c108a6aa0e0d09e'],
  ['53-2MAeng-web-c.usfm', '3792c7d6be137930b5fce43a2ebc5d704edcda68da39b3ab722c0b1270d31f73'],
  ['66-DAGeng-web-c.usfm', '144c1bf4009913ac311fed7a13b1f3baa10bd21edd3ee832f0ade0f0c660c92c'],
  ['70-MATeng-web-c.usfm', 'f996e0a4633f2f24a8ce1f939fd5794b7e9e34f7be47cc49b67411070844de12'],
  ['71-MRKeng-web-c.usfm', '323020a4475c0597d2ddb20050da6bcbced071a7ce42625749f88d0c95d14613'],
  ['72-LUKeng-web-c.usfm', '83b8c283e1466b4c4934e7446021169654c5e1c8b34757147ff8e708b178d2a8'],
  ['73-JHNeng-web-c.usfm', '4741d303fc638a4e1502ea73ad7538ea189de267c70ba7457aba4f0cad498be0'],
  ['74-ACTeng-web-c.usfm', '1d7acfe279294385ca95b5d42b8137b2f79351bfa134daccd83d666bb37fb50a'],
  ['75-ROMeng-web-c.usfm', '35fc9b00970d6a15bcc5b897335009d9a79ff7c1796ab64ea7b315bc3f3bf6a1'],
  ['76-1COeng-web-c.usfm', 'd2abce992faa8d1df4400575268b6a27b6a662dc4246b3b0315fe117dd757838'],
  ['77-2COeng-web-c.usfm', 'c4f668df36c900b3b086457c5a0cf71814a48889d98053901952bf744535629c'],
  ['78-GALeng-web-c.usfm', '0b452b80cab133588b7d8ccb30382c6c320c8ff941a63fc6dd9c819796922674'],
  ['79-EPHeng-web-c.usfm', 'c0dc5ef024732f9a98f54b45ea02fd2bc9dcd2ad28c7449489b63b0bad2cd6a1'],
  ['80-PHPeng-web-c.usfm', '738bc5ecc778309be7be97fb90d60a942438b115708bba83e0ae9525fd063c9f'],
  ['81-COLeng-web-c.usfm', 'd2cdc89b45053f49dc4052a8d629c2b1879f54ad3d62d5c53abc89b2b3bb5a2a'],
  ['82-1THeng-web-c.usfm', '61fdd00082ff3bab4146f05c861a80efe33baef372ec4edebf989eeebc9690ab'],
  ['83-2THeng-web-c.usfm', '21aa102f796df39bc573bf39ddf5ba77cfa1f046c5ade165f1373e9c4b7fdeb2'],
  ['84-1TIeng-web-c.usfm', 'a108d659065be22014796ae42f2a30a91e9ba337675ac191b82bc948e32a7317'],
  ['85-2TIeng-web-c.usfm', 'c1ca97187e9b0f87ff43b3f291ad544871c58468cb10bb234ad8930debcd638d'],
  ['86-TITeng-web-c.usfm', '5a4659568d54885244fc9f3265b02f321dcb9d1a329cde8190a5bfe418e51d15'],
  ['87-PHMeng-web-c.usfm', '407edbdc42b135d3cbc5db1b8f585eb56c6dc6f0e7dd07f750f7f92b827c49de'],
  ['88-HEBeng-web-c.usfm', 'b880182b24e8f035238317e0733005caaffcda6613b4d5a7bdb63ce61e7baaa9'],
  ['89-JASeng-web-c.usfm', '129e0ace814ce154b8fde18b1af9ad68f03035122291951b0ca92fe8fc2afbe2'],
  ['90-1PEeng-web-c.usfm', '099b3a0cc8531b1cb3232f2bf3a2a9f3773046845d03673da86b6c2f2b0f475a'],
  ['91-2PEeng-web-c.usfm', 'd221fedf6fbcd8643908f6a51cee333fa716bc3ae15ceb46400dbe0714df089d'],
  ['92-1JNeng-web-c.usfm', '6135f40a63dace29f6e1dc66b36b775049344f702027263fb613996c3716172b'],
  ['93-2JNeng-web-c.usfm', '0d5f2e7d78908fd3baa055e6ce41e8957cf318ee948b220c48dbc888993e4104'],
  ['94-3JNeng-web-c.usfm', '1f36404eedefc21f658352b35924f681c8f52b82ea123f424d1cd4705918d6d3'],
  ['95-JUDeng-web-c.usfm', '680df2ff2b5b83109e6ae2f3cb01febd61f4df2ed1abfec13d2e9bab7e5591a7'],
  ['96-REVeng-web-c.usfm', '9356a6e109bd8bdde044d7565f92694a2524f96cad11edd1f18a3260478c2043'],
];

export const BRENTON_BASE = 'https://raw.githubusercontent.com/GlenPrideaux/OT_parallel/main/source/eng-Brenton_usfm/';
/** Protestant Old Testament order with Greek Esther and Daniel in place, then eBible's apocrypha order. */
export const BRENTON_ORDER = (
  'GEN EXO LEV NUM DEU JOS JDG RUT 1SA 2SA 1KI 2KI 1CH 2CH EZR NEH ESG JOB PSA PRO ECC SNG ISA JER LAM EZK DAG HOS ' +
  'JOL AMO OBA JON MIC NAM HAB ZEP HAG ZEC MAL TOB JDT WIS SIR BAR LJE SUS BEL 1MA 2MA 1ES MAN 3MA 4MA'
).split(' ');
/** sha256 of each book file; all 53 equal the hashes in eBible's signed signature.txt.asc. */
export const BRENTON_PINS: Pin[] = [
  ['02-GENeng-Brenton.usfm', 'e2a893272a94fafd20a0efdc7fda0e0c72a2d623ac9d40ca5fd8d29f7d06035a'],
  ['03-EXOeng-Brenton.usfm', 'a542eeecb12694d47adbda782746dd8604ec27001a7ff386c81084a6a98bb31a'],
  ['04-LEVeng-Brenton.usfm', 'dac5ddb22d4ead14d64764332f2437c8ed1bd90c703ad9dc06a52c4437e65ee8'],
  ['05-NUMeng-Brenton.usfm', '89a288ff4c9161b04ed03942c15ae39072c699786edfb10af58fbc3a779c85fe'],
  ['06-DEUeng-Brenton.usfm', '544ee5d28db319e3d400cc596e082d8d39e0c06dba7decfdbfef38af84df9cf5'],
  ['07-JOSeng-Brenton.usfm', 'd026604ec2eb73393f16b8137e65c1960552058ca39a817f23689421b0ffee5b'],
  ['08-JDGeng-Brenton.usfm', 'a3fe9aa825e7cf458fef67256890149d364d3cf862d5c54b335930d6f793b541'],
  ['09-RUTeng-Brenton.usfm', '9acb07731583eda9b7ed8466b1ab2fddc2674b804583c4dcf00f11844af94c81'],
  ['10-1SAeng-Brenton.usfm', '864bc7bf486e0b4d6cd3ea645f754919e1b074f63bc1dd41ba446d5cdc169d25'],
  ['11-2SAeng-Brenton.usfm', '20680eebfa8a90ac6561d0ac41627efb5ed586d60e56c50c12936d0a657a4c51'],
  ['12-1KIeng-Brenton.usfm', '4740049cac959b18ccd956ca1254f1f1d753f1cb4dc99ce83216af5d079cb286'],
  ['13-2KIeng-Brenton.usfm', 'f9190dbfc9af272ae7dca54c4f31c97f5b9c35eacb65c9178c2bd2acdf217039'],
  ['14-1CHeng-Brenton.usfm', '70f457a282053e3a2f0bb186952ec759f85a006525aeb696ff2e756d017df415'],
  ['15-2CHeng-Brenton.usfm', '01d4fc6568e4dc8c950130b80f5b1ce4da00239be5fe68d79bff22593a43d200'],
  ['16-EZReng-Brenton.usfm', '865a7234643ed60d18d17a2b5f0cacd33de46780ecc7a3719559d542e5439ce9'],
  ['17-NEHeng-Brenton.usfm', 'a6fd03ceae20d56dcc3959c86883dcb7cd991886c192cb0479ed0f70bdb24edc'],
  ['19-JOBeng-Brenton.usfm', '0fa566247526a5c0aa6255cbdb5f0fb47eb8ab0932220bcbb3b51f29659145e7'],
  ['20-PSAeng-Brenton.usfm', '12602415af372ce675b511eae878b94fd12e048dd882110a3ce130d0eeed8622'],
  ['21-PROeng-Brenton.usfm', '308af5a21c7f44f703d5f5b8cd6240d7fa19a20fb0ecc0ad996ea69f9b13bcd1'],
  ['22-ECCeng-Brenton.usfm', 'e3336ad868ebfe8ce0c0a1a4a268e997d2fe4a533a8818f319178a8dc4bd4179'],
  ['23-SNGeng-Brenton.usfm', '386cb122c3a5a17e322214aa96cc260a2985d3555c85308da92f0b14f2d39852'],
  ['24-ISAeng-Brenton.usfm', 'ecbec298da616ac51bc1acf9d9c77d197e5cf283d6bc13d1fddc1cf2b74585a0'],
  ['25-JEReng-Brenton.usfm', 'bfb4da3699722a3947974db35490eda6d91a52f2c42a994ffc63610548ab0e51'],
  ['26-LAMeng-Brenton.usfm', '8bbc886d9507cac2c97d832b5fff53c389b61e7e0861284a0c756fe3487530aa'],
  ['27-EZKeng-Brenton.usfm', 'ced36a383d829e2adf65a5a0d4d0fb63c0b19fcd6c913c1b247a6bbceb865837'],
  ['29-HOSeng-Brenton.usfm', '8aabfbab009e73180f7488943371f516eedb049f82f9eae89837812fcf0554d3'],
  ['30-JOLeng-Brenton.usfm', 'a288df07320771b824f0c9228b4e1445df0167560de3e81511902542ca3634dd'],
  ['31-AMOeng-Brenton.usfm', '780a748c1791c11f01bc9e2d88bcf6a2f671705d862d144b012702bdb1bd80f2'],
  ['32-OBAeng-Brenton.usfm', '4a1534807a7fb218e368cd6c7bd0237919b304f5f746fddde3ef71b0a5cf144b'],
  ['33-JONeng-Brenton.usfm', '00eba3db479ff6b2221647ea990de1f2cc255525a0978ef5743ce1142eb7795b'],
  ['34-MICeng-Brenton.usfm', '7c8091709f4011d6d92771b9b6948bd13664ab26cc8f89bbf881033aebc67674'],
  ['35-NAMeng-Brenton.usfm', 'ca061c9dd00400d8c62747addba5a1d5640580d74df6795f7169c944f9f8d3e2'],
  ['36-HABeng-Brenton.usfm', '303898e0114c07da1775d4c30486cafd79148d20b566ba15048676a5ff9e0345'],
  ['37-ZEPeng-Brenton.usfm', '74040a22bcfcd152f59074e237f73f02d92100671a80bf4dc9988e1452ed5d03'],
  ['38-HAGeng-Brenton.usfm', 'f9a5d18c491183c94b769de2fe3e45f4ea90d700078913a630e5502d81142027'],
  ['39-ZECeng-Brenton.usfm', '8d37e97a11208189e559cd07a7cb17b23d22285e7db803ca9ecde4121db7320e'],
  ['40-MALeng-Brenton.usfm', 'cc648f78cd5a9adbf423c9fefc5506f6d0793940fbb43e382374a666972b2493'],
  ['43-ESGeng-Brenton.usfm', '802eaa26f9ed82c4f90e1a8906ba767ddba2ad8a43f28ba804e145bcb2f550ad'],
  ['66-DAGeng-Brenton.usfm', 'dbc768d0006c457b320e3164a9d6a6dac87b2b228cf6c4c13b10006f8d36c435'],
  ['unused/41-TOBeng-Brenton.usfm', '7577cc93b80697e2fdffcd5a584cc0bea3e14e32fabfd8249b0e94bda117c9b9'],
  ['unused/42-JDTeng-Brenton.usfm', 'ea2d3200f7a8df07ea545f8aab4c81af283bc345a6ddbf7fb051fee62fcfcfde'],
  ['unused/45-WISeng-Brenton.usfm', 'd830949475255fe2fc2ef75b9dff4cf6459e4d76e041e49379fcd8cfac1b4c88'],
  ['unused/46-SIReng-Brenton.usfm', 'bfea5307cd7861519072d11ea4ac5a0bda359fda3db5bd65777898e741acce28'],
  ['unused/47-BAReng-Brenton.usfm', 'c039e0e1324cf28f68f8db80e6ac5cf9f74fb3571533e2b3e42999227a21d92e'],
  ['unused/48-LJEeng-Brenton.usfm', 'd77ea94eb5301d25c087aee8b3f532ec190c1b2e10ebcef0279118e8bd7ca538'],
  ['unused/50-SUSeng-Brenton.usfm', '608f30446689fa06c764595a94819def941edc25171f9cc27a1e1bc277dde328'],
  ['unused/51-BELeng-Brenton.usfm', 'da6eefa273d6a90383f2c83b8a825b1af946280d25850f5c79f00997be437459'],
  ['unused/52-1MAeng-Brenton.usfm', 'fede7fa79e0acdc0b11b1f1aba3208e8dc267d1170dec0b372b5c83f1bfe3ffd'],
  ['unused/53-2MAeng-Brenton.usfm', '6de15136c844391cfd27eeec8728396ed73c7addbc8ea716caa23385ad958797'],
  ['unused/54-1ESeng-Brenton.usfm', '332cc20ed61bf0cc620d950db3b70934676089ed1f51e08646aac9a9327c502f'],
  ['unused/55-MANeng-Brenton.usfm', '9cfccbc3faa6e38130388baf1cc0f1062cbf9fa6216ad57d83dce5bf6d4d572d'],
  ['unused/57-3MAeng-Brenton.usfm', '99d828e6907349d5fc109b0372a8dad13b1a7b16672fb516b8de9934cd163fc5'],
  ['unused/59-4MAeng-Brenton.usfm', 'e2a87a13d880b78c754b63064627a33ab730eaccc96af66913545bec65e94a2e'],
];

export const webCatholic: TranslationSource = {
  slug: 'web-catholic',
  abbreviation: 'WEBC',
  name: 'World English Bible Catholic Edition',
  language: 'en',
  edition: '2020 stable text edition, Catholic book order (eBible.org eng-web-c, source files dated 10 Jul 2026)',
  versification: 'own',
  provenance: [
    {
      name: 'eBible.org World English Bible (Catholic), eng-web-c USFM',
      url: 'https://ebible.org/find/details.php?id=eng-web-c',
      licence: { ...PUBLIC_DOMAIN, url: 'https://ebible.org/find/details.php?id=eng-web-c' },
      attribution:
        'World English Bible Catholic Edition from eBible.org (https://eBible.org/web/), in the Public Domain. ' +
        '"World English Bible" is a trademark of eBible.org. Footnotes, cross references and headings are left out; ' +
        'the verse text is unchanged. USFM files as vendored in jsbang01357/BibleFrame at commit ' +
        'c508502d5b2666fbcde56ccde0c2355fba40709c.',
    },
  ],
  inputs: inputsOf(WEB_C_BASE, WEB_C_PINS),
  read: (raw) => readEdition('web-catholic', WEB_C_BASE, WEB_C_PINS, WEB_C_ORDER, raw).verses,
};

export const brenton: TranslationSource = {
  slug: 'brenton',
  abbreviation: 'Brenton',
  name: "Brenton's English Septuagint",
  language: 'en',
  edition: '1851 translation with the Apocrypha (eBible.org eng-Brenton, source files dated 12 Dec 2025, signed 22 Dec 2025)',
  versification: 'own',
  provenance: [
    {
      name: 'eBible.org Brenton Septuagint Translation, eng-Brenton USFM',
      url: 'https://ebible.org/find/details.php?id=eng-Brenton',
      licence: { ...PUBLIC_DOMAIN, url: 'https://ebible.org/find/details.php?id=eng-Brenton' },
      attribution:
        "Translation of the Greek Septuagint into English by Sir Lancelot Charles Lee Brenton, published in 1851 and now " +
        'in the Public Domain; USFM edition by eBible.org (https://eBible.org). Footnotes, cross references and headings ' +
        'are left out. Files as vendored in GlenPrideaux/OT_parallel (branch main, commit 053fc8e45941), byte-identical ' +
        "to eBible's signed release.",
    },
  ],
  inputs: inputsOf(BRENTON_BASE, BRENTON_PINS),
  read: (raw) => readEdition('brenton', BRENTON_BASE, BRENTON_PINS, BRENTON_ORDER, raw).verses,
};
