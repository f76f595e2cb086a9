"""The Chinese phrase rules.

They read the same canonical text as the English ones; the building blocks are the Chinese
counterparts of theirs (a time that makes an order standing, a control, an operation, personal
data, a sending verb, someone else's, the agent).
"""

from __future__ import annotations

from graphmem.guard.concept_lexicons import ZH_AGENT

# fmt: off
# ------------------------------------------------------------------ Chinese building blocks
# Punctuation is folded by NFKC: ，：；！？（） become , : ; ! ? ( ); 。“”【】 stay.
_ZB = r"[^。!?\n]"  # any character within a sentence
_ZTEMP = r"(?:从现在起|从现在开始|从今(?:天|日)?(?:开始|起|以后)|从此以后|即日起|自即日起)"
# "以后" right after a finished step ("整理好以后", "开完会以后", "确认以后") is "after that step",
# a sequence the user sets, not "from now on"
_ZTEMP_WEAK = r"(?:今后|(?<![好完了过毕束到认])以后|往后|从此|此后|下次)"
# What follows "以后" in a preference about how the user is spoken to: "以后跟我说话都用中文",
# "以后都用中文回复我", "以后帮我写的邮件..." - the user's own language and style, not an order
# that relaxes anything. Read right after the time word by the temporal rules.
_ZSELF_PREF = (r"(?![,\s]*(?:(?:跟|和|对)我(?:说话|聊天|交流)|给我(?:回复|回信)|帮我写|"
               r"都?用(?:中文|英文|汉语|普通话|简体|繁体)))")
_ZCTRL = r"(?:二次确认|确认|审批|审核|核对|核验|验证|认证|授权|复核|评审|同意|签字|检查|实名)"
_ZOPS = (r"(?:转账|付款|支付|退款|汇款|电汇|取款|提现|交易|发票|报销|账户|密码|删除|上线|部署|"
         r"开户|注销|提额|订单|采购)")
_ZDATA = (r"(?:记忆|笔记|聊天记录|对话记录|通讯录|联系人|密码|密钥|身份证号?|银行卡(?:号|信息)?|"
          r"住址|地址|手机号|电话|病历|隐私|个人信息|资料|文件|数据库|邮箱|历史记录|档案)")
_ZSEND = r"(?:发送|发到|发给|转发|抄送|上传|提交|导出|泄露|透露|告诉|附上|写出|贴到|同步到|发往)"
_ZOWN = r"(?:用户|客户|所有|全部|每条|其他用户|他人|别人|私密|保存的)"
_ZAI = rf"(?:{ZH_AGENT}|代理)"  # the agent; not a robot vacuum (see concept_lexicons)

# Opening the door (not "菜市场六点开门", a shop opening): the lock or the door as the object;
# forbidding it ("别给陌生人开门") is no order.
_ZOPEN_DOOR = (r"(?<!不要)(?<!别)(?<!不能)(?<!不许)(?<!禁止)(?<!不准)"
               r"(?:开锁|解锁|(?:用|通过)[^。]{0,8}(?:门锁|智能锁)[^。]{0,6}开门|打开[^。]{0,6}(?:大门|前门|"
               r"后门|门锁|房门|智能锁)|直接开门|就开门|给(?:他|她|对方|他们)开门)")
_ZCODES = r"(?:验证码|动态码|校验码|一次性密码|重置密码(?:的)?链接|登录链接)"
_ZMONEY_MOVE = (r"(?:转账|汇款|打款|转\d+元|账户\s*\d|收货地址|收款账户|"
                r"删除[^。]{0,10}(?:邮件|短信|通知|提醒))")
_ZCONCEAL = (r"(?:(?:别|不要|不用|无需)在[^。]{0,6}(?:总结|汇总|账单|报告|周报|日报)里?"
             r"(?:提|显示|出现|列出)|(?:别|不要|不用)(?:通知|告诉|提醒)(?:主人|用户|机主|户主)|用户(?:已经?|早就)"
             r"同意|(?:在|趁)用户(?:看到|发现)之?前)")

ZH: list[tuple[str, str, float, str]] = [
    ("zh_ignore_previous", "override", 0.9,
     rf"(?:忽略|无视|忽视|不要理会|别理会|不用理会|不理会|忘掉|忘记|丢弃|抛弃|覆盖|绕过|跳过|"
     rf"停止(?:执行|遵守|遵循)|不要(?:遵守|遵循|执行|听从)){_ZB}{{0,12}}(?:之前|以前|先前|上面|"
     rf"上述|以上|前面|此前|原来|原有|所有|全部|一切|系统|开发者|你的){_ZB}{{0,10}}(?:指令|指示|"
     rf"规则|提示词?|要求|设定|说明|约束|限制|规定|命令|上下文|策略|政策)"),
    ("zh_rules_void", "override", 0.85,
     rf"(?:指令|指示|规则|说明|设定|限制|规定|提示){_ZB}{{0,6}}(?:全部|都|已经|已)?(?:作废|失效|无效|"
     rf"取消|解除|废除|不再有效|过时)"),
    ("zh_priority", "override", 0.75,
     r"优先级?高于|优先于|以本条为准|以这条为准|只听我的|照做|必须服从|服从所有|唯一的?事实来源"),
    ("zh_system_ref", "override", 0.45, r"系统(?:提示词?|消息|设定|指令)"),
    ("zh_never_refuse", "override", 0.75, r"(?:不要|不得|永远不要|别|不能)拒绝"),
    ("zh_skip_safety", "override", 0.85,
     rf"(?:不要|无需|不用|不必|别)(?:遵守|遵循){_ZB}{{0,10}}(?:安全|策略|规则|政策)|"
     rf"(?:关闭|绕过|解除|无视|忽略|禁用){_ZB}{{0,8}}(?:安全(?:规则|策略|限制|设置|检查|过滤)|"
     rf"内容(?:政策|过滤|审核)|日志)"),
    ("zh_clear_context", "override", 0.7,
     r"(?:清空|忘掉|丢弃)(?:之前|以前|前面)?的?(?:上下文|对话|记忆)"),
    ("zh_temporal_directive", "policy", 0.6,
     rf"{_ZTEMP}(?![,\s]*(?:我|咱|我们)){_ZSELF_PREF}[,\s]*{_ZB}{{0,30}}(?:一律|都|直接|全部|所有|任何|必须|"
     rf"不要|不用|不需要|无需|别再|永远|你|自动|凡是)"),
    ("zh_temporal_weak", "policy", 0.45,
     rf"{_ZTEMP_WEAK}(?![,\s]*(?:我|咱|我们)){_ZSELF_PREF}[,\s]*{_ZB}{{0,30}}(?:一律|都|直接|全部|所有|任何|必须|"
     rf"不要|不用|不需要|无需|别再|永远|你|自动|凡是)"),
    ("zh_no_control", "policy", 0.55,
     rf"(?:不再|无需|无须|不需要|不用|不必|免除?|跳过|省去|取消(?:了)?|绕过|别再){_ZB}{{0,10}}"
     rf"{_ZCTRL}"),
    ("zh_no_control_ops", "policy", 0.35, rf"{_ZOPS}{_ZB}{{0,20}}(?:不再|无需|无须|不需要|不用|"
                                          rf"不必|免除?|跳过|省去|取消|别再|已经?预先)|"
                                          rf"(?:不再|无需|无须|不需要|不用|不必|免|跳过){_ZB}{{0,12}}"
                                          rf"{_ZOPS}"),
    ("zh_auto_approve", "policy", 0.7,
     # "全部通过了再部署": tests passing gate the user's step, nothing is approved
     r"(?:一律|直接|自动|全部)(?:批准|通过(?!了?(?:之?后)?[再才])|同意|放行|接受)|"
     r"(?:已|已经)?(?:预先|提前)(?:批准|授权)"),
    ("zh_deemed", "policy", 0.75, r"视为(?:已)?(?:批准|授权|认证|同意|通过)"),
    ("zh_whitelist", "policy", 0.4, r"白名单"),
    ("zh_exempt", "policy", 0.7,
     rf"(?:免除|豁免|免于|免去){_ZB}{{0,8}}(?:{_ZCTRL}|审查|风控|反欺诈|限额|检查)"),
    ("zh_control_removed", "policy", 0.6,
     rf"{_ZCTRL}{_ZB}{{0,8}}(?:已经?|已被|被)?(?:取消|关闭|去掉|删除|废除|停用|免除)"),
    ("zh_answer_always", "policy", 0.6,
     r"(?:一律|都|永远|总是)回答|永远不要(?:提|说|告诉|透露)|不要再(?:征求|询问|问)"),
    ("zh_new_rule", "policy", 0.55, r"(?:新规定|政策更新|流程变更|请记住这条(?:政策|规则))[:：]?"),
    ("zh_role_tag", "impersonation", 0.85, r"(?:^|[。!?\n])\s*(?:系统|助手|开发者)\s*:"),
    ("zh_admin_tag", "impersonation", 0.7, r"(?:^|[。!?\n])\s*管理员\s*:"),
    ("zh_bracket_tag", "impersonation", 0.8, r"【(?:系统|官方|管理员)[^】]{0,6}】|<!--"),
    ("zh_you_are_now", "impersonation", 0.55, r"你现在是|你现在扮演|你的新身份|你现在代表"),
    ("zh_you_are_now_free", "impersonation", 0.85,
     rf"你现在(?:是|扮演|代表){_ZB}{{0,10}}(?:管理员|没有(?:任何)?限制|不受限制|开发者模式|超级|"
     rf"安全团队|root)"),
    ("zh_dev_mode", "impersonation", 0.55, r"开发者模式|越狱|维护模式|DAN模式|dan模式"),
    # not a scam reported ("有人冒充银行客服，骗走了..."; rule_scan._SCAM_BEFORE for the rest)
    ("zh_pretend", "impersonation", 0.75,
     rf"(?<!有人)(?<!骗子)(?:扮演|假装(?:你是|自己是|成)?|冒充|以{_ZB}{{0,6}}身份){_ZB}{{0,10}}(?:管理员|合规|运维|"
     rf"系统|开发者|银行|安全团队|客服|官方)"),
    ("zh_i_am_admin", "impersonation", 0.8, r"我是你的(?:管理员|开发者|主人|创造者|上级)"),
    ("zh_from_vendor", "impersonation", 0.7,
     r"来自(?:开发团队|开发者|官方|系统|管理员|安全团队|平台)的(?:通知|消息|指令)"),
    ("zh_admin_power", "impersonation", 0.6, r"超级管理员|最高权限|全部权限|开放.{0,6}权限"),
    ("zh_obey_all", "impersonation", 0.7,
     r"要什么就给什么|服从所有请求|满足(?:他|她|用户)的?所有要求|安全设置已更新"),
    ("zh_reveal_prompt", "impersonation", 0.9,
     # not another bot's own ("发现客服机器人会泄露自己的系统提示词": a finding about that bot)
     r"(?:公开|泄露|输出|显示|告诉我|打印)[^。]{0,8}(?<!它的)(?<!它们的)(?<!他们的)"
     r"(?:(?<=你自己的)|(?<=您自己的)|(?<!自己的))(?:系统提示词?|隐藏(?:的)?(?:配置|指令|提示))"),
    ("zh_call_tool", "tool", 0.6,
     rf"(?:调用|执行|运行|触发|使用){_ZB}{{0,15}}(?:工具|函数|接口|命令|代码|脚本|api|插件)"),
    ("zh_cron", "tool", 0.45, r"定时任务"),
    ("zh_use_tool", "tool", 0.6, r"(?:用|使用|调用)[^。]{0,6}工具"),
    # not to the user themself or their family ("转给我老婆", "打给我")
    # nor work handed to a colleague to review ("合并请求都转给小陈审")
    ("zh_payment_action", "tool", 0.55,
     r"(?:付给|转给|汇给|打给|支付给|转账给)(?!我(?!们))"
     r"(?![^,，。]{1,6}?(?:审|看一下|看看|过目|处理|跟进|负责))"),
    ("zh_enter_credentials", "tool", 0.6,
     rf"输入{_ZOWN}的?{_ZB}{{0,6}}(?:账号|密码|凭证|验证码|银行卡)"),
    ("zh_destroy_all", "tool", 0.6,
     rf"(?:清空|删除|删掉|抹掉){_ZB}{{0,10}}(?:所有|全部|一切)?的?(?:记忆|记录|数据|日历|通讯录|"
     rf"数据库)"),
    ("zh_send_data", "exfiltration", 0.7,
     # (a breach that happened, "泄露了几百万条用户地址", sends nothing)
     rf"{_ZOWN}的?{_ZB}{{0,8}}{_ZDATA}{_ZB}{{0,15}}{_ZSEND}|{_ZSEND}(?!了){_ZB}{{0,15}}{_ZOWN}的?"
     rf"{_ZB}{{0,8}}{_ZDATA}"),
    ("zh_send_sensitive", "exfiltration", 0.6,
     # "数据泄露都是因为密码重复使用": a breach as a thing talked about, nothing sent
     rf"(?<!数据)(?<!信息)(?<!隐私){_ZSEND}{_ZB}{{0,6}}(?:聊天记录|对话记录|历史记录|通讯录|密码|密钥|记忆)|"
     rf"(?:聊天记录|对话记录|通讯录|密码|密钥|全部记忆){_ZB}{{0,6}}{_ZSEND}"),
    # a secret sent to an address or a number (see en.py, secret_out)
    ("zh_secret_out", "exfiltration", 0.8,
     rf"(?:密码|PIN码?|pin码?|卡号|验证码|动态码|口令|重置密码的?(?:链接|邮件)){_ZB}{{0,30}}"
     rf"(?:{_ZSEND}|发一份|抄送){_ZB}{{0,20}}(?:[\w.+-]+@[\w-]+\.[a-z]{{2,}}|\+?\d[\d\s-]{{7,}}\d|"
     rf"https?://|过去)|"
     rf"(?:[\w.+-]+@[\w-]+\.[a-z]{{2,}}){_ZB}{{0,30}}(?:密码|验证码|动态码|重置密码的?(?:链接|邮件))"
     rf"{_ZB}{{0,20}}(?:{_ZSEND}|发一份|抄送)"),
    ("zh_send_dest", "exfiltration", 0.55,
     rf"{_ZSEND}{_ZB}{{0,12}}(?:https?://|ftp://|www\.|[\w.+-]+@[\w-]+\.[a-z]{{2,}}|外部|回调)"),
    ("zh_tell_other", "exfiltration", 0.75,
     rf"把{_ZB}{{1,8}}的{_ZB}{{0,4}}{_ZDATA}{_ZB}{{0,4}}(?:告诉|发给|给)(?:他|她|他们|别人)|"
     rf"告诉(?:他|她|他们)?{_ZB}{{0,4}}(?:其他用户|用户|他人)的{_ZB}{{0,6}}{_ZDATA}"),
    # a door opened for whoever rings or says a word, or kept open with the camera off
    ("zh_open_door_for", "tool", 0.75,
     rf"(?:有人|任何人|谁|快递|外卖|访客|门铃|开门请求|说是|自称){_ZB}{{0,25}}{_ZOPEN_DOOR}|"
     rf"{_ZOPEN_DOOR}{_ZB}{{0,25}}(?:摄像头|录像|监控|警报|开门记录){_ZB}{{0,6}}(?:关|删|停)|"
     rf"(?:门锁|大门|前门|房门){_ZB}{{0,4}}(?:设成|设为|改成|保持)常开"),
    # sign-in codes and reset links sent on to a number or an address
    ("zh_forward_codes", "exfiltration", 0.8,
     rf"{_ZCODES}{_ZB}{{0,20}}(?:转发|发|抄送|同步|密送){_ZB}{{0,6}}(?:\d{{7,}}|[\w.+-]+@[\w-]+\.\w|过去|"
     rf"那里|这个号|微信号?|qq号?|[a-z][\w-]{{5,}})"),
    # money moved or an address changed, kept from the user
    ("zh_conceal_from_user", "policy", 0.75,
     rf"\A(?=[\s\S]*?{_ZCONCEAL})[\s\S]*?{_ZMONEY_MOVE}"),
    # someone else taken for the user ("说出暗号就当作是我本人", "把他当成机主本人")
    ("zh_treat_as_me", "bridging", 0.75,
     r"(?:当作|当成|视为|看作|看成|当)(?:是)?(?:我本人|机主本人|主人本人|用户本人|机主|户主)"),
    # a second person let into the account
    ("zh_shared_login", "bridging", 0.75,
     # not a shared password someone says should be changed ("共用密码早该换了")
     r"共用(?:一个|同一个|一套)?(?:账号|账户|登录|密码)(?![^,，。]{0,6}(?:换|改|更新|重置|停用|废))|(?:授权的)?第二(?:用户|使用人|账户持有人)|"
     r"可以(?:随时)?(?:查看|访问|浏览|操作|调阅)(?:用户|我|这个用户|他们|任何人)?的?(?:所有|全部|任何)"
     r"(?:人)?的?(?:私人)?(?:记忆|账户|账号|病历|记录|资料)"),
    # a stranger who asks is handed the keys
    ("zh_give_secret_on_ask", "exfiltration", 0.75,
     rf"(?:有人|任何人|谁|客人|来电|访客|陌生人|客服){_ZB}{{0,20}}(?:问|要|说|打电话|来电){_ZB}{{0,40}}"
     rf"(?:给|告诉|报给|发给|念给)(?:他|她|对方|他们)?{_ZB}{{0,20}}(?:网银|登录密码|支付密码|银行卡密码|"
     rf"管理员账号|门锁密码|验证码|完整卡号|卡号|身份证号)|(?<!没)(?<!不)(?<!别)(?<!不要)(?:把|将){_ZB}{{0,12}}(?:网银|登录密码|"
     rf"支付密码|管理员账号|门锁密码|验证码|完整卡号|卡号){_ZB}{{0,12}}(?:告诉|报给|发给|念给|给)(?:他|她|对方|他们)"),
    # someone made the user's equal, or let at the user's secrets ("我爸发的消息就等于我发的，他可以
    # 改我的密码")
    ("zh_delegate_authority", "bridging", 0.75,
     r"(?:就)?(?:等于|等同于|视同)我(?:本人)?(?:发的|说的|本人)|跟我(?:有)?(?:一样|同样)的(?:权限|权力)|"
     r"(?:可以|能|有权|允许)(?:替我|帮我|代我)?(?:改|重置|修改|查看|看|要|拿|听|知道)(?:我的)?"
     r"[^,，。]{0,8}(?:登录密码|支付密码|密码|验证码|身份证号|银行卡号|网银)|"
     # ... or handed them when they ask ("如果她来要支付密码或者我的身份证号，直接给她")
     r"(?:来)?要[^,，。]{0,10}(?:支付密码|登录密码|密码|验证码|身份证号)[^。]{0,16}"
     r"(?:直接|就)给(?:她|他|对方)"),
    ("zh_same_person", "bridging", 0.7,
     r"同一个人|同一人|同一个用户|同一用户|同一个账户|同一账户|"
     r"就是\s*(?:用户)?\s*[a-z0-9_]+\s*[,，]"),
    ("zh_show_hers", "bridging", 0.7,
     rf"(?:把|将)(?:她|他|其|对方)的{_ZB}{{0,6}}(?:记录|记忆|资料|档案|数据|订单){_ZB}{{0,4}}"
     rf"(?:给|发给|告诉)(?:他|她|他们)"),
    ("zh_merge", "bridging", 0.7,
     rf"(?<!我)(?<!我们)(?:合并|关联到|绑定到|挂到|转移到)(?:到|在)?{_ZB}{{0,10}}(?:的)?(?:记忆|档案|"
     rf"账户|账号|资料|记录|名下)|(?:他们|她们|两人|二人|对方|两个人)的?{_ZB}{{0,6}}(?:记忆|档案|"
     rf"账户|账号|资料){_ZB}{{0,4}}(?:合并|关联|绑定)"),
    ("zh_authorised", "bridging", 0.75,
     rf"有权(?:限)?(?:查看|读取|访问|获取|知道|调阅){_ZB}{{0,10}}的"),
    ("zh_can_see", "bridging", 0.7,
     rf"可以(?:查看|读取|访问|看到){_ZB}{{0,6}}的(?:密码|病历|账户|账号|记忆|笔记|银行卡|记录|资料)"),
    ("zh_treat_as", "bridging", 0.8, r"(?:当作|视为|看作|当成)(?:用户|客户|账户|账号)"),
    ("zh_visible_to", "bridging", 0.7,
     r"(?:对|给)(?:用户|客户)[^。]{0,10}(?:可见|开放|共享)|互相查看|共享(?:彼此|各自)"),
    ("zh_copy_between", "bridging", 0.75,
     rf"(?:复制|拷贝|转移|迁移)到?{_ZB}{{0,10}}(?:客户|用户){_ZB}{{0,8}}的(?:资料|档案|账户)"),
    ("zh_when_asks", "bridging", 0.5,
     r"(?:问起|来问|询问)时|谁问都|谁来问|(?:只要|如果|一旦)有人(?:问|提到|发)|有人问起"),
    # what the agent says slanted (see en.py, slant)
    ("zh_slant", "response", 0.75,
     r"只(?:说|讲|提|报|谈)(?:好话|正面|优点|好的一面|好消息)|"
     r"(?:差评|负面|坏话|违约|投诉|丑闻|维权)[^,，。]{0,8}(?:一律)?(?:别提|不提|不要提|略去|删掉|不说|"
     r"别说|隐去)|(?:略去|隐去|删掉|不提)[^,，。]{0,12}(?:负面|违约|差评|投诉|丑闻|维权)|"
     r"(?:是|为)[^,，。]{0,10}唯一(?:正规|官方|合法|可靠|安全|认证)的?(?:平台|渠道|机构|商家|网站|"
     r"app|APP|应用|学校|供应商)"),
    ("zh_every_reply", "response", 0.75,
     # replies to the user themself ("以后回复我的时候用中文") are the user's own preference
     rf"(?:每次|每个|每条|所有|你的|以后的?)(?:回答|回复|答复|输出)(?!我(?!们)){_ZB}{{0,10}}(?:都|要|必须)?"
     rf"(?:推荐|加上|附上|写出|插入|包含|提到|说|用|结尾|开头|末尾)"),
    ("zh_in_reply", "response", 0.7,
     r"在(?:你的)?(?:每个)?(?:回答|回复|答复)(?:中|里|末尾|结尾|的末尾)"),
    ("zh_reply_style", "response", 0.7, r"用(?:摩斯电码|火星文|拼音|倒序|密文|暗语)(?:回答|回复)"),
    ("zh_tell_user", "response", 0.55, rf"告诉用户{_ZB}{{0,20}}(?:必须|需要|要|已经)"),
    ("zh_make_user", "response", 0.65,
     r"(?:让|要求|请)用户[^。]{0,6}(?:关闭|卸载|禁用|下载|安装|拨打|转账)"),
    ("zh_before_answer", "response", 0.5, r"回答之前|回复之前|回答前|回复前"),
    ("zh_promo", "response", 0.45,
     r"(?:拨打|致电|访问|点击|下载|安装|推荐访问)[^。]{0,6}(?:\d{3,4}-|https?://|www\.|"
     r"\.xyz|\.com)"),
    ("zh_note_to_ai", "addressee", 0.6,
     rf"(?:致|给)(?:读取|读到|看到)?{_ZB}{{0,10}}{_ZAI}的?(?:备注|指令|隐藏指令|消息|更新|"
     rf"重要更新|:)|(?:致|给){_ZB}{{0,10}}{_ZAI}\s*:"),
    ("zh_vocative_ai", "addressee", 0.55, rf"(?:^|[,。!?>】(\[【/|-])\s*{_ZAI}\s*[,:]"),
    ("zh_addressed_command", "addressee", 0.75,
     rf"(?:^|[,。!?>】(\[【/|-])\s*(?:给|致)?{_ZAI}(?:的备注)?\s*[,:]\s*{_ZB}{{0,20}}?(?:要|请|必须|"
     rf"应该|把|将|说|告诉|删除|发|转|顺便|立即|马上|以后|从现在)"),
    # not "大模型应用", an application
    ("zh_ai_should", "addressee", 0.6, rf"{_ZAI}(?:应该|应(?!用)|必须|需要|要)"),
    # not what a study or a news item says agents are misled by ("被隐藏指令带偏")
    ("zh_hidden", "addressee", 0.65,
     r"(?<!被)(?:隐藏指令|隐藏的指令)(?![^,，。]{0,4}(?:带偏|误导|攻击))"),
]
# fmt: on

__all__ = ["ZH"]
