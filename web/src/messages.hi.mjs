// Hindi (हिन्दी) of the catalogue in messages.mjs: the same keys, in the same order, with the same
// section comments, so that the two files read side by side. Written for students: Devanagari
// sentences, with the technical terms that Hindi-medium courses keep in English left in Latin letters
// (KEPT_IN_ENGLISH below; the README's "Hindi: terms kept in English" says why). Every {slot} of the
// English is here once, possibly in another place; symbols and formulas are unchanged; numbers are in
// Western digits. Example sentences the lab computes on (“The dog didn't cross…”, 'it', 'bank') stay
// in English: they are the tokens in the tables.

/**
 * The Latin-letter words the Hindi keeps, lower case: the names of the quantities in the formulas and
 * in the literature, the lab's own option values, and names of formats and models. Anything else in
 * Latin letters in the Hindi (outside {slots}, quoted example words and symbols such as W_q, d_k, e^s)
 * is English left untranslated; the test tests/web/messages-hi.test.mjs finds it.
 */
export const KEPT_IN_ENGLISH = [
  // attention itself
  'attention', 'self', 'cross', 'multi-head', 'query', 'queries', 'key', 'keys', 'value', 'values',
  'score', 'scores', 'scaling', 'softmax', 'weight', 'weights', 'weighted', 'token', 'tokens',
  'head', 'heads', 'embedding', 'embeddings', 'contextual', 'task-specific', 'mask', 'causal',
  'padding', 'projection', 'concatenation', 'concatenated', 'concatenate', 'concat', 'parameter',
  'parameters', 'bias', 'positions', 'position', 'sinusoidal', 'layer', 'vector', 'matrix',
  'dimensions', 'operation', 'features', 'read-out', 'attend', 'context', 'scale',
  // the names in the formulas and the lab's file layout
  'multihead', 'wq', 'wk',
  // the lab's option values and the vocabulary's feature names, as the controls show them
  'identity', 'seeded', 'random', 'none', 'animal', 'person', 'pronoun',
  // learning
  'train', 'training', 'held-out', 'loss', 'accuracy', 'gradient', 'learning', 'rate', 'optimiser',
  'seed', 'model', 'hidden', 'states', 'tensors',
  // formats, models, tools and units
  'safetensors', 'json', 'npz', 'npy', 'txt', 'bert', 'bert-base', 'gpt-2', 'webassembly', 'worker',
  'ms', 'ln', 'home', 'end', 'esc',
];

export const HI = {
  // hints on the controls (shown on hover and focus)
  'hint.dModel': 'd_model: हर token को कितनी संख्याओं से दर्शाया जाता है (X के स्तंभ)।',
  'hint.heads': 'heads: कितने attention head साथ-साथ चलते हैं; हर head के अपने W_q, W_k, W_v होते हैं।',
  'hint.dK': 'd_k: हर query और हर key की लंबाई; scores को √d_k से भाग दिया जाता है।',
  'hint.dV': 'd_v: हर value की लंबाई, यानी हर head की आउटपुट पंक्ति की भी।',
  'hint.maskMode': 'mask: जो keys किसी query को नहीं दिखनी चाहिए, उनका score −∞ कर दिया जाता है (causal: बाद के tokens नहीं; padding: [PAD] नहीं)।',
  'hint.attention': 'cross: queries वाक्य से आती हैं, keys और values किसी दूसरे वाक्य (context) से।',
  'hint.useWo': 'W_O: आउटपुट projection, (heads · d_v) × d_model, जो concatenate किए गए heads को मिलाकर वापस d_model चौड़ाई में लाता है।',

  // the example and how it was changed
  'preset.modified': '"{title}" में बदलाव किया गया है: {aspects}। जो टिप्पणियाँ अब लागू नहीं होतीं, वे धुंधली दिखाई गई हैं; उदाहरण को दोबारा चुनें तो सब पहले जैसा हो जाएगा।',
  'preset.aspect.sentence': 'वाक्य',
  'preset.aspect.attention': 'self या cross attention',
  'preset.aspect.sizes': 'आकार',
  'preset.aspect.scaling': 'scaling का तरीका',
  'preset.aspect.mask': 'mask का प्रकार',
  'preset.aspect.parameters': 'parameters के मान',
  'preset.aspect.inputs': 'X की संख्याएँ',
  'preset.sourceTitle': 'स्रोत',
  'preset.source': 'लेक्चर नोट्स, फ़ाइल {source}।',
  'preset.action.oneHead': 'सिर्फ़ एक head',
  'preset.action.restore': 'वापस उदाहरण पर',
  'weights.replaced': 'आकार बदल गए, इसलिए हाथ से तय किए गए parameters अब फ़िट नहीं होते: उनकी जगह seed से बने random parameters रखे गए हैं (seed {seed})। उन्हें वापस पाने के लिए उदाहरण फिर से चुनें।',
  'weights.replacedForWo': 'W_O चालू किया गया, पर हाथ से तय किया गया W_O (heads · d_v) × d_model = {rows} × {cols} का होना चाहिए और concatenation की चौड़ाई d_model जितनी नहीं है, इसलिए हाथ से तय किए गए parameters की जगह seed से बने random parameters रखे गए हैं (seed {seed})। उन्हें वापस पाने के लिए उदाहरण फिर से चुनें।',

  // the engine, in a details element
  'engine.computed': '{build} WebAssembly इंजन ने {ms} ms में गणना की।',
  'engine.computedOnPage': '{build} WebAssembly इंजन ने {ms} ms में गणना की, इसी पेज पर (यहाँ worker नहीं है)।',
  // the opening example, whose result comes with the page (first-result.mjs)
  'engine.shipped': 'यह परिणाम पेज बनाते समय ही {build} WebAssembly इंजन ने पहले से निकाल लिया था।',
  'engine.shippedOnPage': 'यह परिणाम पेज बनाते समय ही {build} WebAssembly इंजन ने पहले से निकाल लिया था; अब इंजन इसी पेज पर चलता है (यहाँ worker नहीं है)।',

  // the formula strip and the guided walk
  'walk.stage.x': 'X',
  'walk.stage.qkv': 'Q, K, V = X·W',
  'walk.stage.scores': 'QKᵀ',
  'walk.stage.scaled': '÷ √d_k',
  'walk.stage.weights': 'softmax',
  'walk.stage.z': '· V',
  'walk.stage.concat': 'Concat(head₁…head_h)',
  'walk.stage.output': '· W_O',
  'walk.formula': 'Attention(Q, K, V) = softmax(QKᵀ / √d_k) · V      MultiHead = Concat(head₁ … head_h) · W_O',
  'walk.jump': 'इस चरण की तालिका दिखाएँ',
  'walk.intro': 'चुने गए token की गणना, एक-एक operation करके, पूरे हिसाब के साथ।',
  'walk.position': '{count} में से चरण {step}',
  'walk.start': 'चरण-दर-चरण देखें',
  'walk.next': 'आगे',
  'walk.back': 'पीछे',
  'walk.stop': 'बंद करें',
  'walk.keys': 'कीबोर्ड: → या N आगे, ← या P पीछे, Home और End पहला और आख़िरी चरण, Esc बंद करें।',
  'walk.q': "'{token}' के लिए q = x · W_q, head {head}: X की पंक्ति '{token}' गुणा W_q का हर स्तंभ।",
  'walk.k': "K = {source} · W_k, head {head}: हर token की key, यानी {source} की हर पंक्ति गुणा W_k। हिसाब '{key}' के लिए दिखाया गया है: यही वह key है जिसे यह query सबसे ज़्यादा weight देती है।",
  'walk.v': "V = {source} · W_v, head {head}: हर token की value, यानी {source} की हर पंक्ति गुणा W_v। हिसाब '{key}' के लिए दिखाया गया है।",
  'walk.score': "'{token}' का '{key}' के साथ score: q · k, {dK} dimensions पर योग।",
  'walk.scale': "Scaling: '{token}' के हर score को {divisor} से भाग दिया गया।",
  'walk.scaleNone': "कोई scaling नहीं: '{token}' के scores जैसे हैं वैसे ही softmax में जाते हैं।",
  'walk.softmax': "'{token}' की पंक्ति पर softmax: e^s / Σ e^s, ताकि सारे weights धनात्मक हों और उनका योग 1 हो।",
  'walk.weighted': "Weighted value: weight('{token}' → '{key}') × '{key}' का v।",
  'walk.sum': "'{token}' का z, head {head}: सभी weighted values का योग।",
  'walk.concat': "Concatenation: हर head से '{token}' की z पंक्ति, सब अगल-बगल: [z₁ | … | z_h]।",
  'walk.wo': "'{token}' के लिए Z_f = concat · W_O: concatenated पंक्ति गुणा W_O का हर स्तंभ।",
  'walk.noWo': "W_O नहीं है: '{token}' का आउटपुट उसकी concatenated पंक्ति ही है।",
  'walk.arithmeticOf': '{cell}:',

  // the step table and the heatmap options
  'steps.scaleToggle': '√d_k से भाग दें',
  'heatmap.numbers': 'खानों में संख्याएँ',
  'heatmap.rowScale': 'हर पंक्ति के रंग उसी पंक्ति के न्यूनतम से अधिकतम तक फैलाएँ',
  'heatmap.rowMin': 'पंक्ति का न्यूनतम',
  'heatmap.rowMax': 'पंक्ति का अधिकतम',
  'heatmap.legend': 'रंगों का अर्थ: हल्का रंग weight 0 है, गहरा रंग weight 1; धारीदार खाने mask किए गए हैं',
  'heatmap.legendStretched': 'रंगों का अर्थ: हर पंक्ति में सबसे हल्का रंग उस पंक्ति का सबसे छोटा weight है और सबसे गहरा रंग सबसे बड़ा; धारीदार खाने mask किए गए हैं',

  // explanations
  'table.x': 'X', 'table.context': 'C', 'table.q': 'Q', 'table.k': 'K', 'table.v': 'V', 'table.scores': 'Scores',
  'table.scaled': 'Scale किए गए scores', 'table.weights': 'Weights', 'table.z': 'Z', 'table.concat': 'Concatenation',
  'table.output': 'आउटपुट', 'table.wq': 'W_q', 'table.wk': 'W_k', 'table.wv': 'W_v', 'table.wo': 'W_O',
  'explain.title': "{table}: पंक्ति '{row}', स्तंभ '{col}'",
  'explain.titleHead': "{table}, head {head}: पंक्ति '{row}', स्तंभ '{col}'",
  'explain.input': "एक इनपुट: स्तंभ '{col}' में '{row}' का embedding, जो शब्दावली से, उदाहरण से या आपके टाइप करने से आया है।",
  'explain.projection': "{table} = {source} · {weights}: {source} की पंक्ति '{row}' गुणा {weights} का स्तंभ '{col}'।",
  'explain.score': "q·k: Q की पंक्ति '{token}' गुणा K की पंक्ति '{key}', head के {dK} स्तंभों पर योग।",
  'explain.masked': "Mask किया गया: '{key}' को '{token}' से छिपाया गया है, इसलिए उसका score −∞ रखा जाता है और उसका weight e^−∞ = 0 होगा।",
  'explain.scaledBy': 'भाजक: {why} = {divisor}; score को इसी से भाग दिया गया।',
  'explain.why.sqrt_dk': '√d_k = √{dK}',
  'explain.why.none': 'कुछ नहीं (scaling बंद है)',
  'explain.why.custom': 'आपकी चुनी हुई संख्या',
  'explain.allMasked': 'इस query के लिए हर key mask की गई है: पंक्ति में कहीं कोई weight नहीं है और इसका आउटपुट शून्य है।',
  'explain.softmax': "'{token}' की पंक्ति पर softmax: उसकी {count} keys पर e^s / Σ e^s।",
  'explain.maskedTerms': '({count} mask किए गए: e^−∞ = 0, छोड़ दिए गए)',
  'explain.z': "Values का weighted योग: सभी keys पर Σ weight('{token}' → key) × V[key, '{col}']।",
  'explain.concat': "Concatenation [Z_1 | … | Z_{heads}] का स्तंभ '{col}' असल में head {head} के Z का स्तंभ '{headCol}' है।",
  'explain.noWo': 'W_O नहीं है: आउटपुट सभी heads का concatenation ही है।',
  'explain.wo': "Z_f = concat · W_O: concatenation की पंक्ति '{token}' गुणा W_O का स्तंभ '{col}'।",
  'explain.parameter': 'एक parameter: parameters की सेटिंग (identity, seeded random) से, उदाहरण से या आपके टाइप करने से तय हुआ।',
  'explain.inSteps': "चरण-तालिका में: पंक्ति '{row}', स्तंभ '{col}'।",
  'explain.zeros': '({count} शून्य पद छोड़ दिए गए)',
  'explain.zero': '(1 शून्य पद छोड़ दिया गया)',
  'explain.allZero': 'हर पद 0 है',

  'explain.positions': 'Positions चालू हैं: योग के हर पद में {source} के साथ उसकी पंक्ति की sinusoidal position भी है, जो projection से पहले जोड़ी जाती है।',
  'explain.bias': 'फिर इस स्तंभ का bias {bias} जोड़ा जाता है: {value}।',

  // ---- the Train section (web/src/training/)
  'train.title': 'Attention को सीखते हुए देखें',
  'train.intro': 'W_q और W_k random मानों से शुरू होते हैं। कोई कार्य चुनें, “Train करें” दबाएँ, और देखें कि held-out वाक्यों (जिनके शब्द training में कभी नहीं आए) का attention सही बैठता है या नहीं। फिर सीखे गए weights ऊपर की तालिकाओं में डालें।',
  'train.task': 'कार्य',
  'train.task.who-is-it': "'it' कौन है? (003)",
  'train.task.tired-or-wide': "'tired' या 'wide'? (003: एक layer यह नहीं सीख सकती)",
  'train.task.which-bank': "'bank' का कौन-सा अर्थ? (000, 001)",
  'train.task.one-back': 'ठीक पिछला शब्द देखें',
  'train.task.two-readings': 'दो heads, दो अर्थ (000)',
  'train.about.who-is-it': "“The dog didn't cross the road because it was too tired”: 'it' की पंक्ति को अपना ज़्यादातर weight जानवर या व्यक्ति पर देना चाहिए। Held-out वाक्यों में ऐसी संज्ञाएँ और जगहें हैं जो training में कभी नहीं आईं, इसलिए layer को शब्द रटने के बजाय शब्दावली के features (animal, person, pronoun) से सीखना होगा।",
  'train.about.tired-or-wide': "अब 'too tired' का मतलब जानवर है और 'too wide' का मतलब सड़क। एक attention layer इसे नहीं सीख सकती: 'it' की query सिर्फ़ 'it' से बनती है और हर key अपने ही शब्द से, इसलिए विशेषण यह नहीं बदल सकता कि किस संज्ञा का score ज़्यादा होगा। हर जोड़ी के दो वाक्यों में से एक गलत ही रहता है: accuracy 50 % के आसपास और loss ln 2 = 0.693 के आसपास रहता है। दूसरी layer यह कर सकती है: उसकी 'it' वाली query में पहली layer का मिलाया हुआ 'tired' या 'wide' पहले से मौजूद होगा।",
  'train.about.which-bank': "“I took the cash to the bank” या “We sat on the bank by the river”: 'bank' की आउटपुट पंक्ति से एक read-out बताता है कि मतलब पैसा है या नदी। दोनों वाक्यों में 'bank' का vector एक ही है; उन्हें सिर्फ़ वही अलग कर सकता है जो उसका attention बाकी शब्दों से इकट्ठा करता है: यही 001 का task-specific contextual embedding है।",
  'train.about.one-back': 'हर शब्द को अपने ठीक पहले वाले शब्द पर attend करना चाहिए। इसे positions “none” के साथ आज़माएँ: positions के बिना attention शब्दों को क्रम की तरह नहीं, एक समूह की तरह देखता है (शब्दों का क्रम बदलें तो weights भी उसी तरह अदल-बदल जाते हैं), इसलिए किसी शब्द को पता ही नहीं चलता कि उससे पहले कौन-सा शब्द आया, और held-out accuracy बस तुक्के जितनी रहती है। Sinusoidal positions के साथ X की हर पंक्ति में उसकी जगह भी होती है, और q·k “मुझसे एक पहले” सीख सकता है।',
  'train.about.two-readings': "“I saw the astronomer with a telescope”: head 1 को सिखाया जाता है कि वह औज़ार को क्रिया से जोड़े (मैंने दूरबीन से देखा), और head 2 को कि वह उसे व्यक्ति से जोड़े (दूरबीन एस्ट्रोनॉमर के पास थी)। देखिए कि दोनों heads में औज़ार वाली पंक्ति कैसे अपने-अपने अर्थ में ढल जाती है।",
  'train.start': 'Train करें',
  'train.pause': 'रोकें',
  'train.step': 'एक चरण',
  'train.reset': 'रीसेट करें',
  'train.speed': 'प्रति सेकंड चरण',
  'train.speedMax': 'जितना तेज़ हो सके',
  'train.learningRate': 'Learning rate',
  'train.optimizer': 'Optimiser',
  'train.seed': 'Seed',
  'train.positions': 'Positions',
  'train.parameters': 'सीखने वाले parameters',
  'train.parameter.embeddings': 'embeddings',
  'train.accuracy': 'Held-out वाक्यों पर accuracy: {percent} %',
  'train.progress': 'चरण {steps}। Training loss {train}, held-out loss {heldOut}।',
  'train.heldOutCount': '{train} training वाक्य और {heldOut} held-out वाक्य; किसी भी held-out वाक्य की कोई संज्ञा training में नहीं है।',
  'train.lossCurve': 'Loss: training (पूरी रेखा) और held-out (टूटी रेखा), हर चरण पर',
  'train.lossCurveLabel': '{steps} चरणों का loss ग्राफ़: training loss {train}, held-out loss {heldOut}',
  'train.probe': 'Held-out वाक्य',
  'train.probeHeatmap': "Held-out वाक्य के attention weights, head {head}; पंक्ति '{query}' को train किया जाता है",
  'train.head': 'Head {head}',
  'train.weightsTitle': 'अभी के W_q, W_k, W_v (स्तंभ: पहले head 1, फिर head 2, …; नीला ऋणात्मक, लाल धनात्मक)',
  'train.weightLabel': '{name}: {rows} × {cols}, सबसे बड़ा परिमाण {max}',
  'train.use': 'ये weights इस्तेमाल करें',
  'train.used': 'ऊपर की तालिकाएँ अब held-out वाक्य “{sentence}” पर सीखे गए weights दिखा रही हैं। लिंक में ये weights भी साथ जाते हैं।',
  'train.usedEmbeddings': 'ऊपर की तालिकाएँ अब held-out वाक्य “{sentence}” पर सीखे गए weights और embeddings दिखा रही हैं। लिंक में ये भी साथ जाते हैं।',
  'train.diverged': 'Training रुक गई: {message}',
  'train.needParameter': 'सीखने के लिए कम से कम एक parameter चुनें।',
  'train.badNumber': '{field} 0 से बड़ी कोई संख्या होनी चाहिए; मिला: “{value}”',
  'train.badSeed': 'Seed 0 या उससे बड़ी कोई पूर्ण संख्या होनी चाहिए; मिला: “{value}”',
  'train.target': 'लक्ष्य',

  // ---- Bring your own layer (web/src/layers/)
  'layers.title': 'अपनी layer लाएँ',
  'layers.intro': '.safetensors, .npz या JSON फ़ाइल से एक attention layer लोड करें (BERT, GPT-2, या इसी लैब से सहेजी गई फ़ाइल): फ़ाइल चुनें या उसे यहाँ खींचकर छोड़ें। कुछ भी आपके कंप्यूटर से बाहर नहीं जाता: फ़ाइल इसी पेज पर पढ़ी जाती है।',
  'layers.choose': 'Weights की फ़ाइल चुनें',
  'layers.drop': 'या उसे यहाँ खींचकर छोड़ें',
  'layers.reading': '{name} पढ़ी जा रही है…',
  'layers.found': '{name}: {count} tensors; पहचाने गए ढाँचे: {layouts}।',
  'layers.layer': 'Layer',
  'layers.layerOption': '{label} ({kind}, d_model {dModel})',
  'layers.heads': 'Heads',
  'layers.headsGuess': 'फ़ाइल में यह नहीं लिखा कि इस layer में कितने heads हैं: {heads} एक अनुमान है (BERT-base और GPT-2 में 12 heads होते हैं, हर head का d_k 64)। लोड करने से पहले इसे जाँच लें।',
  'layers.headsKnown': 'Heads: {heads}, फ़ाइल से।',
  'layers.names': 'इस्तेमाल हुए tensors: {names}',
  'layers.load': 'यह layer लोड करें',
  'layers.loaded': '{name} से {label} लोड हुई: d_model {dModel}, {heads} heads, हर head का d_k {dK}{causal}।',
  'layers.causal': ', causal mask (GPT-2 सिर्फ़ पहले आए tokens पर attend करता है)',
  'layers.tooLargeForLink': 'इस layer में {count} संख्याएँ हैं, लिंक के लिए बहुत ज़्यादा: कॉपी किए गए लिंक में सिर्फ़ सेटिंग्स रहती हैं। इन्हें साझा करने के लिए weights को .safetensors में सहेजें।',
  'layers.inputsTitle': 'इनपुट X',
  'layers.inputsHint': 'हर पंक्ति में एक token: पहले उसका नाम, फिर d_model संख्याएँ (जैसे असली model से निकाले गए hidden states)। या JSON {"tokens": [...], "x": [[...], ...]}, या (n, d_model) आकार की .npy फ़ाइल। इनके बिना X लैब की शब्दावली से बनता है।',
  'layers.inputsPaste': 'इनपुट चिपकाएँ',
  'layers.inputsApply': 'ये इनपुट इस्तेमाल करें',
  'layers.inputsFile': 'इनपुट लोड करें (.npy, .txt, .json)',
  'layers.inputsVocabulary': 'इसके बजाय शब्दावली इस्तेमाल करें',
  'layers.inputsUsed': 'X अब दी गई {n} पंक्तियों से बना है।',
  'layers.inputsProblem': 'इनपुट: {problem}।',
  'layers.save': 'अभी के weights सहेजें',
  'layers.saveSafetensors': '.safetensors के रूप में',
  'layers.saveJson': 'JSON के रूप में',
  'layers.saved': '{name} सहेजी गई: लैब के अपने ढाँचे में {count} tensors (wq, wk: heads × d_model × d_k; …)।',
  'layers.cap': '{size} तक की फ़ाइलें पढ़ी जाती हैं; इससे बड़ी फ़ाइलें खोलने से पहले ही अस्वीकार कर दी जाती हैं।',

  // ---- keys added with the catalogue move (i18n)
};
